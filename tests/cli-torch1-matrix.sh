# Every PyTorch path on Debian's torch 1.13 (/usr/bin/python3, the legacy profiler): tests/torch-matrix.sh.
TPY=/usr/bin/python3
GEN=1
SKIP_HOW="apt-get install python3-torch"
. "$(dirname "$0")/torch-matrix.sh"
