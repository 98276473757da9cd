"""The package against the command: the same tables, charts and errors from the same library."""
import csv
import ctypes
import io
import json
import os
import pathlib
import subprocess
import threading

import pytest

import rooftime
from rooftime import core
from rooftime._lib import lib

from conftest import run

pd = pytest.importorskip("pandas")

EXAMPLE = "data/examples/conv2d-pt-fp16.json"


def csv_rows(text, kind):
    return [r for r in csv.DictReader(io.StringIO(text)) if r["kind"] == kind]


def csv_printed(column, v):
    """v as `analyze --format csv` prints a value of column: text as it is, rank and the 0/1
    flags as whole numbers, every other number as "%.9g" (inf as "inf"), NaN as an empty field."""
    if isinstance(v, str):
        return v
    if column in ("rank", "overhead_bound", "zero_ai"):
        assert v == int(v)
        return str(int(v))
    v = float(v)
    return "" if v != v else "%.9g" % v


def assert_csv_rows(rows, columns, text, kind):
    """rows (dicts) are the rows of kind of `analyze --format csv` text, row for row: the same
    columns in the same order, the same rows in the same order, the same strings, and numbers
    equal to the CSV's within its printed precision (printed as the CSV prints them, they are its
    text)."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader)
    want = [r for r in reader if r[0] == kind]
    assert list(columns) == header
    assert len(rows) == len(want) > 0
    for got, exp in zip(rows, want):
        assert [csv_printed(c, got[c]) for c in header] == exp, got["name"]


ODD_TAG = 'a, "quoted" \u00b5s value\nover two lines \u00fc'


def odd_profile(repo, path, **first):
    """The example with kernels whose CSV fields are not plain: names to quote, names pandas
    would read as NaN, UTF-8, missing bytes (empty fields), no counts, zero time, zero bytes at
    a level (AI inf), more launches than %.9g prints whole, tags only some kernels carry (empty
    tag.<key> fields) with values to quote, in UTF-8, "NA" and ""; first: fields of the first
    kernel."""
    d = json.load(open(os.path.join(repo, EXAMPLE)))
    k0 = dict(d["kernels"][0], **first)
    d["kernels"][0] = k0
    tagged = lambda **t: {"tags": dict(k0["tags"], **t)}
    for name, kw in (('a, "quoted" name\nwith a line break', tagged(note=ODD_TAG)),
                     ("nan", tagged(note="NA", layer="conv1")), ("NA", tagged(layer="")),
                     ("\u00b5s kernel \u00fc", {}),
                     ("no L1 bytes", {"bytes": {"L2": 1e8, "HBM": 5e7}}),
                     ("no bytes", {"bytes": {}}), ("no counts", {"bytes": {}, "flops": {}}),
                     ("zero time", {"time": 0.0}),
                     ("zero L1 bytes", {"bytes": {"L1": 0.0, "L2": 1e8, "HBM": 5e7}}),
                     ("many launches", {"invocations": 1234567891.0})):
        d["kernels"].append(dict(k0, name=name, **kw))
    with open(path, "w") as f:
        json.dump(d, f)
    return str(path)


def test_library_is_a_cdll_so_calls_release_the_gil():
    # ctypes drops the GIL around calls into a CDLL (a PyDLL keeps it)
    assert type(lib) is ctypes.CDLL
    assert lib.rt_api_version() == rooftime._lib.API_VERSION == 6
    # and no module of the package loads anything through PyDLL or pythonapi (which keep it)
    pkg = os.path.dirname(rooftime.__file__)
    for f in os.listdir(pkg):
        if f.endswith(".py"):
            text = open(os.path.join(pkg, f)).read()
            assert "PyDLL(" not in text and "pydll" not in text and "pythonapi" not in text, f


def test_machine_presets_and_files(tmp_path):
    m = rooftime.machine("v100")
    assert "V100" in m.name
    d = m.to_dict()
    assert d["units"] and d["levels"]
    m.save(tmp_path / "m.json")
    m2 = rooftime.load_machine(tmp_path / "m.json")
    assert m2.to_dict() == d


def test_kernels_match_analyze_csv_row_for_row(repo, rooftime_bin):
    path = os.path.join(repo, EXAMPLE)
    for mode in ("hier", "single"):
        cli = run([rooftime_bin, "analyze", "--machine", "v100", "--mode", mode, "--format", "csv",
                   path])
        a = rooftime.analyze(rooftime.load_profile(path), rooftime.machine("v100"), mode=mode)
        assert a.csv == cli
        for kind, frame in (("kernel", a.kernels), ("config", a.configs)):
            assert_csv_rows(frame.to_dict("records"), frame.columns, cli, kind)


def test_odd_fields_match_analyze_csv_with_sensible_dtypes(repo, rooftime_bin, tmp_path):
    """Empty fields, inf, quoted and UTF-8 names, "nan" and "NA" as names: the frames hold the
    CSV's values; numbers stay numbers (NaN where the CSV's field is empty)."""
    path = odd_profile(repo, tmp_path / "odd.json")
    cli = run([rooftime_bin, "analyze", "--machine", "v100", "--format", "csv", path])
    assert ",," in cli and ",inf," in cli and '"a, ""quoted"" name' in cli
    a = rooftime.analyze(path, "v100")
    k = a.kernels
    assert a.csv == cli
    assert_csv_rows(k.to_dict("records"), k.columns, cli, "kernel")
    assert_csv_rows(a.configs.to_dict("records"), a.configs.columns, cli, "config")
    assert {"nan", "NA", "\u00b5s kernel \u00fc"} <= set(k["name"])
    ints = ["rank", "invocations", "overhead_bound", "zero_ai"]
    texts = ["kind", "name", "config", "bound"]
    tags = [c for c in k.columns if c.startswith("tag.")]
    assert all(k[c].dtype == "int64" for c in ints)
    assert all(k[c].dtype == object for c in texts + tags)
    assert all(k[c].dtype == "float64" for c in k.columns if c not in ints + texts + tags)
    assert ODD_TAG in set(k["tag.note"]) and k["tag.note"].isna().sum() == len(k) - 2
    assert k["bytes_L1"].isna().sum() == 3 and k["ai_L1"].isin([float("inf")]).sum() == 1
    assert k["invocations"].max() == 1234567891  # the CSV prints 1.23456789e+09
    # invocations that are not whole: floats, as the CSV's text is
    frac = odd_profile(repo, tmp_path / "frac.json", invocations=2.5)
    cli = run([rooftime_bin, "analyze", "--machine", "v100", "--format", "csv", frac])
    k = rooftime.analyze(frac, "v100").kernels
    assert k["invocations"].dtype == "float64" and 2.5 in set(k["invocations"])
    assert_csv_rows(k.to_dict("records"), k.columns, cli, "kernel")


BASE_COLUMNS = ("kind", "rank", "name", "config", "invocations", "time_s", "share", "flops",
                "bytes_L1", "bytes_L2", "bytes_HBM", "ai_L1", "ai_L2", "ai_HBM", "t_compute_s",
                "t_bandwidth_s", "t_overhead_s", "t_bound_s", "bound", "efficiency",
                "recoverable_s", "bw_time_s", "compute_time_s", "overhead_bound", "zero_ai")


def tag_values(row):
    """The tags of a row of .kernels or .configs, from its tag.<key> columns (NaN: none)."""
    return {c[4:]: v for c, v in row.items() if c.startswith("tag.") and isinstance(v, str)}


def test_tag_columns_are_each_rows_json_tags(repo, rooftime_bin, tmp_path):
    """One tag.<key> column per tag key after the other columns, in order of first appearance
    (the configs' tags, then the kernels'); a row's values are its JSON element's "tags" (a
    config's: its grouping tags; a kernel's: the profile's and its own), NaN where it has none;
    the same in the CSV of the command, quoted as the CSV quotes text."""
    path = odd_profile(repo, tmp_path / "odd.json")
    example = ["tag." + t for t in ("framework", "precision", "operation", "pass", "batch")]
    for group_by, first in ((None, example), ("batch,pass", ["tag.batch", "tag.pass"])):
        a = rooftime.analyze(path, "v100", group_by=group_by)
        cli = run([rooftime_bin, "analyze", "--machine", "v100", "--format", "csv", path] +
                  (["--group-by", group_by] if group_by else []))
        assert a.csv == cli
        d = a.to_dict()
        for kind, frame, elements in (("config", a.configs, d["configs"]),
                                      ("kernel", a.kernels, d["kernels"])):
            cols = list(frame.columns)
            assert tuple(cols[:len(BASE_COLUMNS)]) == BASE_COLUMNS
            tags = cols[len(BASE_COLUMNS):]
            assert tags[:len(first)] == first
            assert set(tags) == set(example + ["tag.note", "tag.layer"])
            assert [tag_values(r) for r in frame.to_dict("records")] == \
                [e["tags"] for e in elements], (kind, group_by)
            assert_csv_rows(frame.to_dict("records"), cols, cli, kind)
        if group_by:  # configs carry the grouping tags only: the rest are empty fields
            assert a.configs["tag.framework"].isna().all()
            assert not a.kernels["tag.framework"].isna().any()
        assert '"' + ODD_TAG.replace('"', '""') + '"' in cli
        assert set(a.kernels["tag.layer"].dropna()) == {"conv1", ""}


def test_tag_columns_stop_at_64_with_a_warning(repo, rooftime_bin, tmp_path):
    """70 kernels with a key each, besides the profile's 3: the first 64 keys get a column, a
    warning counts the 9 left out (in the command's stderr too); they stay in the config label."""
    d = json.load(open(os.path.join(repo, EXAMPLE)))
    k0 = d["kernels"][0]
    d["kernels"] = [dict(k0, name="k%d" % i, tags={"key%02d" % i: "v%d" % i}) for i in range(70)]
    path = str(tmp_path / "many-keys.json")
    with open(path, "w") as f:
        json.dump(d, f)
    a = rooftime.analyze(path, "v100")
    with pytest.warns(UserWarning, match="9 tag keys have no tag.<key> column.*'key61'"):
        k = a.kernels
    tags = [c for c in k.columns if c.startswith("tag.")]
    assert tags == ["tag.framework", "tag.precision", "tag.operation"] + \
        ["tag.key%02d" % i for i in range(61)]
    assert any("9 tag keys" in w for w in a.warnings)
    r = subprocess.run([rooftime_bin, "analyze", "--machine", "v100", "--format", "csv", path],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "9 tag keys have no tag.<key> column" in r.stderr
    assert r.stdout == a.csv and next(csv.reader(io.StringIO(r.stdout)))[-64:] == tags
    assert any(c.endswith(" key69=v69") for c in k["config"])
    assert_csv_rows(k.to_dict("records"), k.columns, r.stdout, "kernel")


def test_deepcam_ncu_import_matches_the_command(deepcam, rooftime_bin, tmp_path):
    out = tmp_path / "deepcam.json"
    run([rooftime_bin, "import", "ncu", "-o", str(out)] + deepcam)
    cli = run([rooftime_bin, "analyze", "--machine", "v100", "--format", "csv", str(out)])
    p = rooftime.import_ncu(deepcam)
    assert len(p) == 35  # the authors' expected-per-kernel.csv: 35 kernels
    a = rooftime.analyze(p, "v100")
    assert a.csv == cli
    assert list(a.kernels["name"]) == [r["name"] for r in csv_rows(cli, "kernel")]
    # the profile saved from Python loads back in the command, with the same verdicts
    p.save(tmp_path / "py.json")
    assert run([rooftime_bin, "analyze", "--machine", "v100", "--format", "csv",
                str(tmp_path / "py.json")]) == cli


def test_tau_reference_and_json(repo, rooftime_bin):
    path = os.path.join(repo, EXAMPLE)
    cli = run([rooftime_bin, "analyze", "--machine", "v100", "--tau", "10us", "--format", "json",
               path])
    a = rooftime.analyze(path, "v100", tau="10us")
    assert a.to_dict() == json.loads(cli)
    assert a.to_dict()["machine"]["launch_overhead"] == pytest.approx(1e-5)
    # the machine and profile objects are not changed by an analysis's tau
    p = rooftime.load_profile(path)
    m = rooftime.machine("v100")
    rooftime.analyze(p, m, tau="1ms")
    assert rooftime.analyze(p, m).to_dict() == rooftime.analyze(path, "v100").to_dict()


def test_findings_and_text(repo):
    a = rooftime.analyze(os.path.join(repo, EXAMPLE), "v100")
    f = a.findings
    assert len(f) > 0 and set(f["source"]) <= {"summary", "callouts"}
    # the summary's sentences are in text, as the callouts' are (they were blank: a notebook's
    # a.findings[["section", "text"]] showed empty Summary rows)
    lists = f[f["kind"] == "list"]
    assert len(lists) > 0 and lists["text"].str.startswith("Total 5.622 ms over 6 kernels").all()
    assert (f[f["kind"] != "table"]["text"] != "").all()
    assert "kernel" in a.text("text").lower()


def test_plot_svg_png_and_the_command(repo, rooftime_bin, tmp_path):
    path = os.path.join(repo, EXAMPLE)
    a = rooftime.analyze(path, "v100")
    c = a.plot(view="4d", points="kernels")
    svg = c._repr_svg_()
    assert svg.lstrip().startswith("<?xml") or svg.lstrip().startswith("<svg")
    assert "</svg>" in svg
    run([rooftime_bin, "plot", "--machine", "v100", "--view", "4d", "--points", "kernels",
         "-o", str(tmp_path / "cli.svg"), path])
    assert (tmp_path / "cli.svg").read_text() == svg
    assert c.save(tmp_path / "py.svg") and (tmp_path / "py.svg").read_text() == svg
    c.save(tmp_path / "py.png")
    assert (tmp_path / "py.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report(repo, tmp_path):
    page = rooftime.analyze(os.path.join(repo, EXAMPLE), "v100").report(tmp_path / "r")
    html = open(page).read()
    assert "<html" in html and "<svg" in html


def test_lists_of_dicts_without_pandas(repo, monkeypatch, tmp_path):
    path = odd_profile(repo, tmp_path / "odd.json")
    a = rooftime.analyze(path, "v100")
    monkeypatch.setattr(core, "_pd", None)
    monkeypatch.setattr(rooftime._columns, "_np", None)  # and without numpy
    k = a.kernels
    assert isinstance(k, list) and isinstance(k[0], dict)
    assert_csv_rows(k, k[0].keys(), a.csv, "kernel")
    assert_csv_rows(a.configs, a.configs[0].keys(), a.csv, "config")
    assert isinstance(k[0]["time_s"], float)
    assert all(type(r[c]) is int for r in k for c in ("rank", "invocations", "zero_ai"))
    assert isinstance(a.findings, list)


def test_paper_table_import(fixtures, rooftime_bin, tmp_path):
    t = os.path.join(fixtures, "paper-tables")
    main, ai = os.path.join(t, "rnn1d-pt.main.csv"), os.path.join(t, "rnn1d-pt.l2-l1-ai.csv")
    run([rooftime_bin, "import", "table", main, "--ai-file", ai, "-o", str(tmp_path / "t.json")])
    cli = run([rooftime_bin, "analyze", "--machine", "v100", "--format", "csv",
               str(tmp_path / "t.json")])
    assert rooftime.analyze(rooftime.import_table(main, ai_file=ai), "v100").csv == cli


BAD = [
    ("load_profile", lambda d: rooftime.load_profile(d / "missing.json"), "missing.json"),
    ("not text", lambda d: rooftime.load_profile(d / "garbage.json"), "NUL"),
    ("truncated", lambda d: rooftime.load_profile(d / "truncated.json"), "truncated.json"),
    ("machine", lambda d: rooftime.machine("no-such-machine"), "no-such-machine"),
    ("ncu garbage", lambda d: rooftime.import_ncu([d / "garbage.json"]), "garbage.json"),
    ("torch garbage", lambda d: rooftime.import_torch(d / "garbage.json"), "garbage.json"),
    ("onednn missing", lambda d: rooftime.import_onednn(d / "none.log"), "none.log"),
    ("cupti missing", lambda d: rooftime.import_cupti(d / "nodir"), "nodir"),
    ("table garbage", lambda d: rooftime.import_table(d / "garbage.json"), "garbage.json"),
]


@pytest.mark.parametrize("what,call,needle", BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises_error_with_the_c_message(tmp_path, what, call, needle):
    (tmp_path / "garbage.json").write_text("this is not it\n\x00\xff")
    (tmp_path / "truncated.json").write_text('{"schema": "rooftime.profile/1", "kernels": [{"na')
    with pytest.raises(rooftime.Error) as e:
        call(tmp_path)
    assert needle in str(e.value)


def test_bad_options_raise_error(repo):
    p = rooftime.load_profile(os.path.join(repo, EXAMPLE))
    with pytest.raises(rooftime.Error, match="mode"):
        rooftime.analyze(p, "v100", mode="fast")
    with pytest.raises(rooftime.Error, match="tau takes"):
        rooftime.analyze(p, "v100", tau="soon")
    a = rooftime.analyze(p, "v100")
    with pytest.raises(rooftime.Error, match="view"):
        a.plot(view="5d")
    with pytest.raises(rooftime.Error, match="TAG=VALUE"):
        a.plot(where="nothing")
    with pytest.raises(rooftime.Error):
        a.plot(series_by="no-such-tag")
    with pytest.raises(rooftime.Error, match="extension|format"):
        a.plot().save("/tmp/chart.bmp")
    with pytest.raises(rooftime.Error):
        a.text("yaml")
    with pytest.raises(rooftime.Error, match="unknown kind"):
        core._import("nvprof", ["x"])


def test_errors_are_per_thread(repo):
    # a failing call in one thread never shows its message as another thread's error
    msgs = {}

    def bad(i):
        try:
            rooftime.load_profile("/nonexistent/%d.json" % i)
        except rooftime.Error as e:
            msgs[i] = str(e)

    ts = [threading.Thread(target=bad, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert all("/nonexistent/%d.json" % i in msgs[i] for i in range(4))


def test_across_ranks_matches_the_command(repo, rooftime_bin, tmp_path):
    d = tmp_path / "ranks"
    d.mkdir()
    ex = json.load(open(os.path.join(repo, EXAMPLE)))
    for r in range(4):
        p = json.loads(json.dumps(ex))
        if r == 2:  # one slow rank
            for k in p["kernels"]:
                k["time"] *= 1.5
        (d / ("r%d.json" % r)).write_text(json.dumps(p))
    cli = run([rooftime_bin, "analyze", "--across", "rank", "--format", "json", str(d)])
    a = rooftime.across(d, by="rank")
    assert a.to_dict() == json.loads(cli)
    assert set(a.stragglers["rank"]) == {2}
    assert a.text() == run([rooftime_bin, "analyze", "--across", "rank", str(d)])
    a.chart(tmp_path / "box.svg", machine="v100")
    assert "</svg>" in (tmp_path / "box.svg").read_text()
    (tmp_path / "empty").mkdir()
    with pytest.raises(rooftime.Error, match="no .json profile"):
        rooftime.across(tmp_path / "empty")
    with pytest.raises(rooftime.Error):
        rooftime.across([d / "r0.json", tmp_path / "missing.json"])
    with pytest.raises(rooftime.Error, match="straggler"):
        rooftime.across(d, straggler=-1)


def test_threads_share_an_analysis(repo):
    # calls run without the GIL: threads on one analysis get the same tables and charts
    a = rooftime.analyze(os.path.join(repo, EXAMPLE), "v100")
    out = {}

    def work(i):
        out[i] = (a.text("csv"), a.plot(view=("4d", "roofline")[i % 2]).svg())

    ts = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len({out[i][0] for i in out}) == 1
    assert len({out[i][1] for i in out if i % 2 == 0}) == 1
    assert len({out[i][1] for i in out if i % 2 == 1}) == 1


def test_diff_matches_the_command(fixtures, rooftime_bin, tmp_path):
    t = os.path.join(fixtures, "paper-tables")
    paths = []
    for name in ("conv2d-pt", "conv2d-tf2-noxla"):
        out = str(tmp_path / (name + ".json"))
        run([rooftime_bin, "import", "table", os.path.join(t, name + ".main.csv"), "--ai-file",
             os.path.join(t, name + ".l2-l1-ai.csv"), "-o", out])
        paths.append(out)
    for opts, kw in (([], {}), (["-m", "v100", "--top", "5"], {"machine": "v100", "top": 5}),
                     (["-m", "v100", "--mode", "hier", "--by", "Precision", "--tau", "10us"],
                      {"machine": "v100", "mode": "hier", "by": "Precision", "tau": "10us"})):
        d = rooftime.diff(paths[0], paths[1], **kw)
        assert d.text == run([rooftime_bin, "diff"] + opts + paths)
        assert d.csv == run([rooftime_bin, "diff", "--format", "csv"] + opts + paths)
    assert len(d.rows) == len(d.csv.splitlines()) - 1  # every row and the total
    with pytest.raises(rooftime.Error, match="need a machine"):
        rooftime.diff(paths[0], paths[1], tau="1us")
    with pytest.raises(rooftime.Error):
        rooftime.diff(paths[0], paths[1], machine="v100", mode="sideways")
    with pytest.raises(rooftime.Error):
        rooftime.diff(paths[0], tmp_path / "missing.json")


@pytest.mark.parametrize("kind,name,conv", [
    ("onednn", "onednn-2.6-torch-conv2d-forward.log", None),
    ("onednn", "onednn-2.6-torch-lstm-bf16.log", None),
    ("torch", "torch-1.13-conv2d-backward.json", None),
    ("torch", "torch-1.13-lstm-forward.json", "window"),
])
def test_framework_imports_match_the_command(repo, rooftime_bin, tmp_path, kind, name, conv):
    src = os.path.join(repo, "tests", "data", name)
    out = str(tmp_path / "p.json")
    run([rooftime_bin, "import", kind, src, "-o", out] + (["--conv-flops", conv] if conv else []))
    cli = run([rooftime_bin, "analyze", "--machine", "a100", "--format", "csv", out])
    fn = rooftime.import_onednn if kind == "onednn" else rooftime.import_torch
    p = fn(src, conv_flops=conv)
    assert rooftime.analyze(p, "a100").csv == cli
    assert p.to_dict()["kernels"] == json.load(open(out))["kernels"]


def test_analysis_warnings_as_the_command_prints_them(rooftime_bin, tmp_path):
    # kernels on units the machine lacks: the command warns on stderr, the package as Python
    # warnings at the call that computes the analysis, each once, and lists them in .warnings
    ks = [{"name": "k%d" % i, "invocations": 1, "time": 1e-3,
           "flops": {("amx_bf16", "amx_int8")[i % 2]: 1e9}, "bytes": {"HBM": 1e6}}
          for i in range(12)]
    path = str(tmp_path / "w.json")
    with open(path, "w") as f:
        json.dump({"schema": "rooftime.profile/1", "source": {"tool": "test"}, "kernels": ks}, f)
    r = subprocess.run([rooftime_bin, "analyze", "-m", "v100", path], capture_output=True,
                       text=True)
    expect = [l.split("warning: ", 1)[1] for l in r.stderr.splitlines() if "warning: " in l]
    assert len(expect) == 2
    a = rooftime.analyze(path, "v100")
    with pytest.warns(UserWarning) as got:
        a.kernels
    assert [str(w.message).split("analyze: ", 1)[1] for w in got] == expect
    assert got[0].filename == __file__  # pointing at the user's line
    assert a.warnings == expect
    import warnings as w
    with w.catch_warnings():
        w.simplefilter("error")  # computed once: no warning again
        a.kernels
        a.text("csv")
    a.report(str(tmp_path / "r"))  # single mode too: its messages, new ones only
    assert a.warnings[:2] == expect and len(set(a.warnings)) == len(a.warnings)


def test_diff_rows_missing_numbers_are_nan(repo, tmp_path):
    p = rooftime.load_profile(os.path.join(repo, EXAMPLE))
    d = p.to_dict()
    d["kernels"] = d["kernels"][1:]
    path = str(tmp_path / "after.json")
    with open(path, "w") as f:
        json.dump(d, f)
    rows = rooftime.diff(p, path).rows
    only = rows[rows["time_after_s"].isna()]
    assert len(only) == 1 and only["kernel"].iloc[0].startswith("conv2d backward batch 16")
    assert rows["time_before_s"].dtype == float and rows["kernel"].dtype == object


def test_path_arguments_str_bytes_pathlike_and_nothing_else(repo, tmp_path):
    """A path is a str, bytes or os.PathLike (as open() takes it). A NUL inside it is an error, as
    open() makes it, not a shorter path the C library would read silently (another file); a file
    object or another type is a TypeError naming it, not the file named by its repr."""
    path = os.path.join(repo, EXAMPLE)
    want = rooftime.load_profile(path).to_dict()
    for p in (path, os.fsencode(path), pathlib.Path(path)):
        got = rooftime.load_profile(p)
        assert got.to_dict() == want and got.origin == path
    assert rooftime.analyze(os.fsencode(path), b"v100").csv == rooftime.analyze(path, "v100").csv
    assert "V100" in repr(rooftime.machine(b"v100")) and "from v100>" in repr(rooftime.machine(b"v100"))
    assert len(rooftime.import_torch(os.fsencode(os.path.join(
        repo, "tests", "data", "torch-1.13-conv2d-backward.json")))) > 0
    with pytest.raises(ValueError, match="null byte"):
        rooftime.load_profile(path + "\0.bak")
    with pytest.raises(ValueError, match="null byte"):
        rooftime.machine("v100\0-custom")
    with pytest.raises(ValueError, match="null byte"):
        rooftime.import_table(os.path.join(repo, EXAMPLE), tag={"run": "a\0b"})
    with pytest.raises(ValueError, match="null byte"):
        rooftime.analyze(path, "v100").plot().save(str(tmp_path / "a.svg") + "\0.png")
    with open(path) as f:
        with pytest.raises(TypeError, match="TextIOWrapper"):
            rooftime.load_profile(f)
    with pytest.raises(TypeError, match="list"):
        rooftime.analyze(path, "v100", mode=["hier"])
    # bytes directories in across
    d = tmp_path / "ranks"
    d.mkdir()
    (d / "r0.json").write_text(open(path).read())
    assert rooftime.across(os.fsencode(d)).to_dict() == rooftime.across(d).to_dict()


def test_gpu_mark_refuses_a_nul_in_a_value():
    with pytest.raises(rooftime.Error, match="NUL"):
        rooftime.gpu.profile().mark(run="a\0b")


def test_repr_reads_the_head_not_every_kernel(repo, monkeypatch):
    """repr(analysis) (a notebook cell's value, a debugger, a traceback) wrote and parsed the whole
    `analyze --format json` for three numbers: 9 s at 100,000 kernels. It reads the JSON's head."""
    a = rooftime.analyze(os.path.join(repo, EXAMPLE), "v100", tau="10us")
    d = a.to_dict()
    head = json.loads(a.text("head"))
    assert set(head) == {"schema", "mode", "machine", "totals"}
    assert head == {k: d[k] for k in head}
    monkeypatch.setattr(rooftime.Analysis, "to_dict", lambda self: pytest.fail("whole JSON"))
    assert repr(a) == "<rooftime.Analysis 6 kernels, 6 configs, 0.005622 s>"


def test_top_is_checked_as_the_command_checks_it(repo, rooftime_bin, tmp_path):
    """top=None raised ctypes.ArgumentError ("argument 3: TypeError: wrong type") and top=-1 gave
    every row (wrapped to a huge size_t); the command refuses both (--top takes a whole number
    >= 0). 0 is every row, as --top 0."""
    path = os.path.join(repo, EXAMPLE)
    a = rooftime.analyze(path, "v100")
    assert a.text("text", 0) == run([rooftime_bin, "analyze", "-m", "v100", "--top", "0", path])
    assert a.text("text", 2) == run([rooftime_bin, "analyze", "-m", "v100", "--top", "2", path])
    across = rooftime.across([path, path])
    for bad in (None, -1, 2.5, "3", True):
        with pytest.raises(rooftime.Error, match="top takes a whole number >= 0"):
            a.text("text", bad)
        with pytest.raises(rooftime.Error, match="top takes a whole number >= 0"):
            across.text(bad)
    with pytest.raises(rooftime.Error, match="top takes a whole number >= 1"):
        rooftime.diff(path, path, top=True)


def test_save_never_overwrites_the_imported_input(repo, tmp_path):
    """rooftime.import_table("t.csv").save("t.csv") replaced the table with the profile, where
    `rooftime import table t.csv -o t.csv` refuses ("is also an input: it would be
    overwritten"); the file stays as it was and the profile saves elsewhere."""
    src = os.path.join(repo, "tests", "data", "torch-1.13-conv2d-backward.json")
    trace = tmp_path / "trace.json"
    trace.write_bytes(open(src, "rb").read())
    before = trace.read_bytes()
    with pytest.warns(UserWarning):
        p = rooftime.import_torch(trace)
    for target in (trace, str(trace), os.path.relpath(trace), tmp_path / "link.json"):
        if target == tmp_path / "link.json":
            os.symlink(trace, target)
        with pytest.raises(rooftime.Error, match="the profile's input .*trace.json.*overwritten"):
            p.save(target)
        assert trace.read_bytes() == before
    p.save(tmp_path / "profile.json")
    assert len(rooftime.load_profile(tmp_path / "profile.json")) == len(p)
