"""Run lines with text after the run id: skipped, as trec_eval skips it (docs/eval.md, Conventions).

trec_eval 9.0.8 reads a run line's six fields and skips the rest of the
line; its own test file ``test/results.trunc`` carries such text, and
trec_eval prints the same for it as for the file cut to six columns
(tests/data/trec_eval/README.md).  Here trec_eval's test run
(``results.test``) gets text after the run id on every line, or on some
lines only (so both the numpy block reader and the line reader meet it),
and every reader must give what the six-column file gives.  A line of
fewer than six columns is still refused, naming the file and the line.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tieaware.cli import main
from tieaware.io.trec import parse_run
from tieaware.model.errors import TieawareError

DATA = Path(__file__).parent / "data" / "trec_eval" / "options"


def _files(tmp_path, every):
    qrels = tmp_path / "qrels"
    qrels.write_bytes(gzip.decompress((DATA / "qrels.test.gz").read_bytes()))
    lines = gzip.decompress((DATA / "results.test.gz").read_bytes()).decode().splitlines()
    plain = tmp_path / "plain"
    plain.write_text("\n".join(lines) + "\n")
    extra = tmp_path / "extra"
    extra.write_text("\n".join(line + ("\tretrieved by  BM25 k1=0.9" if i % every == 0 else "") for i, line in enumerate(lines)) + "\n")
    return str(qrels), str(plain), str(extra)


@pytest.mark.parametrize("every", [1, 7])
def test_text_after_the_run_id_is_skipped(tmp_path, capsys, every):
    qrels, plain, extra = _files(tmp_path, every)
    for options in (["--format", "trec", "-q", "-m", "runid num_ret map P.5 infAP", "--tie-break", "trec_eval"],
                    ["--format", "trec", "-M", "20", "-J", "-m", "map relstring.10"],
                    ["--format", "json", "-m", "AP nDCG@10", "--float"]):
        outputs = []
        for run in (plain, extra):
            assert main(["eval", qrels, run, *options]) == 0
            outputs.append(capsys.readouterr().out)
        if options[1] == "json":
            outputs = [o.replace(extra, plain) for o in outputs]
        assert outputs[0] == outputs[1], options


def test_the_python_reader_skips_it_too():
    assert parse_run(["q1 Q0 d1 1 0.5 r extra", "q1 Q0 d2 2 0.25 r"]) == parse_run(["q1 Q0 d1 1 0.5 r", "q1 Q0 d2 2 0.25 r"])


def test_fewer_than_six_columns_are_still_refused(tmp_path, capsys):
    qrels, _, _ = _files(tmp_path, 1)
    bad = tmp_path / "bad"
    bad.write_text("301 Q0 a 1 2.5 r extra text\n301 Q0 b 2 1.5\n")
    assert main(["eval", qrels, str(bad), "-m", "AP"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and f"{bad}:2: expected 6 columns" in err
    with pytest.raises(TieawareError, match="run.txt:1: expected 6 columns"):
        parse_run(["q1 Q0 d1 1 0.5"], "run.txt")
