"""The notebooks of examples/ executed headless (Debian's python3-nbclient), their outputs checked."""
import glob
import os
import re

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")


def execute(path, env, cwd=None):
    nb = nbformat.read(path, as_version=4)
    # the kernel imports the package under test, whichever way this process found it
    import rooftime
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(rooftime.__file__)))
    env = dict(env, PYTHONPATH=os.pathsep.join(
        [pkg] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the kernel inherits this process's environment
    try:
        nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                resources={"metadata": {"path": cwd or os.path.dirname(path)}}).execute()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    svgs, text = [], []
    for c in nb.cells:
        for o in c.get("outputs", []):
            data = o.get("data", {})
            if "image/svg+xml" in data:
                svgs.append(data["image/svg+xml"])
            text.append(o.get("text", "") + data.get("text/plain", ""))
    return svgs, "\n".join(text)


def test_no_absolute_paths_of_this_machine(repo):
    for nb in glob.glob(os.path.join(repo, "examples", "*.ipynb")):
        src = open(nb).read()
        assert not re.search(r"(/work/|/home/|/root/|/tmp/)", src), nb
        # committed without outputs: they are made by running it
        assert all(not c.get("outputs") for c in nbformat.read(nb, as_version=4).cells
                   if c.cell_type == "code"), nb


def test_paper_notebook(repo, fixtures):
    svgs, text = execute(os.path.join(repo, "examples", "paper.ipynb"),
                         {"ROOFTIME_FIXTURES": os.path.abspath(fixtures)})
    # Fig. 3 (five views), Fig. 9 (three), DeepCAM (two)
    assert len(svgs) == 10
    assert all("</svg>" in s for s in svgs)
    assert "cf. paper Fig. 3" in svgs[0] and "cf. paper Fig. 9" in svgs[5]
    assert "conv2d configs: 120" in text
    assert "lstm configs: 48" in text
    assert "deepcam kernels: 35 launches: 633" in text  # as the authors' own processing found
    assert "volta_scudnn_128x64_relu_interior_nn_v1" in text


def test_torch_notebook(repo):
    pytest.importorskip("torch")
    # a preset instead of minutes of measuring this machine: the test checks the notebook's
    # mechanics, not this machine's verdicts
    svgs, text = execute(os.path.join(repo, "examples", "torch-notebook.ipynb"),
                         {"ROOFTIME_MACHINE": "a100"})
    assert len(svgs) == 2 and "CNN + LSTM training step" in svgs[0]
    assert re.search(r"operators: \d+", text)
    assert "aten::mkldnn_convolution" in text or "aten::convolution" in text
    assert "operator self time" in text


def test_readme_snippet_draws_a_4d_chart_inline(repo, tmp_path):
    """The README's Python snippet, run as a notebook cell from the checkout, shows a chart."""
    text = open(os.path.join(repo, "README.md")).read()
    section = text[text.index("## Python and Jupyter"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(code)]
    nbformat.write(nb, str(tmp_path / "snippet.ipynb"))
    svgs, out = execute(str(tmp_path / "snippet.ipynb"), {}, cwd=repo)
    assert len(svgs) == 1 and "</svg>" in svgs[0]
