# The Python package (python/) against this build's librooftime.so: its pytest suite, the
# notebooks of examples/ executed headless among them (tests/python-package.sh), and its PyTorch
# paths again on the PyPI torch 2.x (tests/python-package-torch2.sh).
set(RT_PY_ENV ${RT_TEST_ENV} "ROOFTIME_LIB=$<TARGET_FILE:rooftime-shared>"
              "PYTHONPATH=${CMAKE_SOURCE_DIR}/python" "PYTHONDONTWRITEBYTECODE=1")
if(ROOFTIME_SANITIZE)
  # a sanitized library in an unsanitized interpreter: the runtime first, and no leak report for
  # the interpreter's own allocations
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE RT_LIBASAN OUTPUT_STRIP_TRAILING_WHITESPACE)
  list(APPEND RT_PY_ENV "LD_PRELOAD=${RT_LIBASAN}" "ASAN_OPTIONS=detect_leaks=0")
endif()
add_test(NAME python-package COMMAND bash ${CMAKE_SOURCE_DIR}/tests/python-package.sh
         WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(python-package PROPERTIES ENVIRONMENT "${RT_PY_ENV}" SKIP_RETURN_CODE 77
                     TIMEOUT 600)
# The same package's PyTorch paths on the PyPI torch 2.x (tests/python-package-torch2.sh).
add_test(NAME python-package-torch2 COMMAND bash ${CMAKE_SOURCE_DIR}/tests/python-package-torch2.sh
         WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(python-package-torch2 PROPERTIES ENVIRONMENT "${RT_PY_ENV}"
                     SKIP_RETURN_CODE 77 TIMEOUT 600)
