"""Bad input to `check`, `vectors` and `conformance`: one line on stderr, exit 2, nothing else printed or left behind."""

from __future__ import annotations

import os

import pytest

from tieaware.cli import main


def _one_error(capsys, command):
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"tieaware {command}: error: ")
    return lines[0]


@pytest.mark.parametrize("as_path", [False, True])
def test_check_a_module_with_a_syntax_error_is_an_input_error_showing_the_import_error(tmp_path, monkeypatch, capsys, as_path):
    (tmp_path / "broken_metrics.py").write_text("def f(scores, labels):\n    return (\n")
    monkeypatch.chdir(tmp_path)
    target = "./broken_metrics.py:f" if as_path else "broken_metrics:f"
    assert main(["check", target, "AP"]) == 2  # not 1, which means "differs"
    line = _one_error(capsys, "check")
    assert f"target names a module that cannot be imported (SyntaxError: " in line
    assert "broken_metrics.py, line 2" in line and repr(target) in line


def test_check_a_module_whose_top_level_raises_is_an_input_error(tmp_path, monkeypatch, capsys):
    (tmp_path / "raising_metrics.py").write_text("import no_such_module_for_tieaware\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "raising_metrics:f", "AP"]) == 2
    line = _one_error(capsys, "check")
    assert "cannot be imported (ModuleNotFoundError: No module named 'no_such_module_for_tieaware')" in line


def test_vectors_out_an_existing_file_is_refused_and_the_file_is_untouched(tmp_path, capsys):
    existing = tmp_path / "vectors.json"
    existing.write_text("keep me")
    assert main(["vectors", "--out", str(existing), "--family", "precision"]) == 2
    line = _one_error(capsys, "vectors")
    assert line.endswith(f"--out must be a directory, not an existing file, got {str(existing)!r}")
    assert existing.read_text() == "keep me" and os.listdir(tmp_path) == ["vectors.json"]


def test_vectors_out_an_unwritable_directory_leaves_nothing_half_written(tmp_path, capsys):
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o500)
    try:
        if os.access(parent, os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        assert main(["vectors", "--out", str(parent / "sub"), "--family", "precision"]) == 2
        line = _one_error(capsys, "vectors")
        assert "--out cannot be written (Permission denied)" in line
        assert os.listdir(parent) == []
    finally:
        parent.chmod(0o700)


def test_conformance_markdown_a_directory_is_refused_before_any_check(tmp_path, capsys):
    assert main(["conformance", "--library", "rbo", "--markdown", str(tmp_path)]) == 2
    line = _one_error(capsys, "conformance")
    assert line.endswith(f"--markdown must be a file, not a directory, got {str(tmp_path)!r}")
    assert os.listdir(tmp_path) == []


def test_conformance_markdown_in_a_missing_directory_is_refused(tmp_path, capsys):
    page = tmp_path / "nowhere" / "conformance.md"
    assert main(["conformance", "--library", "rbo", "--markdown", str(page)]) == 2
    line = _one_error(capsys, "conformance")
    assert "--markdown must be in an existing directory" in line and "does not exist" in line
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(labels="graded"), "labels must be one of ['binary', 'integer']"),
        (dict(labels=()), "labels must be a non-empty list"),
        (dict(labels=(0, -1)), "labels"),
        (dict(scores="round"), "scores must be 'any' or among ['positive', 'non-negative', 'integer']"),
        (dict(max_docs=0), "max_docs must be None or an int >= 1"),
        (dict(max_docs=True), "max_docs must be None or an int >= 1"),
    ],
)
def test_check_domain_arguments_are_checked_before_any_call(options, message):
    from tieaware import TieawareError
    from tieaware.check import implementation, spread

    calls = []

    def impl(s, l):
        calls.append(1)
        return 0.0

    with pytest.raises(TieawareError, match=message.replace("[", r"\[").replace("(", r"\(")):
        implementation(impl, "AP", **options)
    with pytest.raises(TieawareError):
        spread(impl, "AP", "min", **options)
    assert not calls


def test_check_spread_refuses_a_statistic_and_untied(tmp_path, monkeypatch, capsys):
    (tmp_path / "m.py").write_text("def f(s, l):\n    return 0.0\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "m:f", "AP", "--spread", "min", "--untied"]) == 2
    assert "--untied" in _one_error(capsys, "check")
    assert main(["check", "m:f", "AP", "--adapter", "tensors"]) == 2
    assert "--tensor" in _one_error(capsys, "check")
