"""Retraining from Python: dechrome.train over a WCXB folder and a snippet
manifest, the saved model loaded back, determinism, and dechrome.evaluate."""

import json
import pathlib

import pytest

import dechrome
from conftest import FIXTURES, REPO

SAMPLE = REPO / "training-data" / "sample"

# tests/common.rs small_config: 3 folds, 40 trees.
SMALL = {"folds": 3, "inner_folds": 3, "css_min_domains": 2, "ensemble": {"n_trees": 40}}


def snippet_corpus(root: pathlib.Path) -> pathlib.Path:
    """A snippet corpus over the fixture pages with the must / must-not
    snippets of tests/fixtures/snippets.json (the layout of
    tests/corpora_union.rs)."""
    (root / "pages").mkdir(parents=True)
    spec = json.loads((FIXTURES / "snippets.json").read_text(encoding="utf-8"))
    lines = []
    for i, page in enumerate(spec):
        name = page["file"]
        (root / "pages" / name).write_bytes((FIXTURES / name).read_bytes())
        lines.append(
            json.dumps(
                {
                    "id": f"s{i}",
                    "url": f"https://www.news.site{i}.org/{name}",
                    "file": f"pages/{name}",
                    "with": page["must"],
                    "without": page["must_not"],
                }
            )
        )
    (root / "manifest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    snip = snippet_corpus(tmp_path_factory.mktemp("corpora") / "snip")
    return [SAMPLE, snip]


@pytest.fixture(scope="module")
def trained(corpora, tmp_path_factory):
    out = tmp_path_factory.mktemp("models") / "a.model"
    report = dechrome.train(corpora, out, folds=3, seed=42, config=SMALL)
    return out, report


def test_train_reports_each_corpus_and_saves_the_model(trained):
    out, report = trained
    assert out.is_file()
    assert report["model"] == str(out)
    assert report["folds"] == 3
    assert len(report["fold_thresholds"]) == 3
    assert report["skipped"] == []
    assert set(report["corpora"]) == {"sample", "snip"}
    sample, snip = report["corpora"]["sample"], report["corpora"]["snip"]
    assert sample["pages"] > 0 and 0.0 < sample["word"]["overall"]["f1"] <= 1.0
    spec = json.loads((FIXTURES / "snippets.json").read_text(encoding="utf-8"))
    assert snip["pages"] == len(spec)
    assert sum(snip["snippets"]["counts"].values()) == sum(
        len(p["must"]) + len(p["must_not"]) for p in spec
    )


def test_the_trained_model_loads_and_extracts(trained):
    out, _ = trained
    extractor = dechrome.Extractor(model=out)
    text = extractor.extract((FIXTURES / "python-blog.html").read_bytes())
    assert "Python" in text and len(text.split()) > 20


def test_same_seed_gives_the_same_model_bytes(trained, corpora, tmp_path):
    out, first = trained
    again = tmp_path / "b.model"
    second = dechrome.train(corpora, again, folds=3, seed=42, config=SMALL)
    assert again.read_bytes() == out.read_bytes()
    del first["model"], second["model"]
    assert first == second


def test_a_single_corpus_path_and_a_bad_config(corpora, tmp_path):
    out = tmp_path / "never.model"
    with pytest.raises(dechrome.ConfigError, match="folds"):
        dechrome.train(SAMPLE, out, folds=1)
    with pytest.raises(dechrome.ConfigError, match="unknown field `n_treez`"):
        dechrome.train(SAMPLE, out, config={"n_treez": 10})
    # Nested keys too, named with the known ones.
    with pytest.raises(dechrome.ConfigError, match="unknown field `n_tree`, expected one of .*n_trees"):
        dechrome.train(SAMPLE, out, config={"ensemble": {"n_tree": 50}})
    with pytest.raises(dechrome.ConfigError):
        dechrome.train(SAMPLE, out, config={"ensemble": {"n_trees": "many"}})
    with pytest.raises(dechrome.ConfigError):
        dechrome.train([], out)
    with pytest.raises(dechrome.DechromeError):
        dechrome.train(tmp_path, out, config=SMALL)
    assert not out.exists()


def test_evaluate_scores_a_snippet_corpus(corpora, trained):
    snip = corpora[1]
    spec = json.loads((FIXTURES / "snippets.json").read_text(encoding="utf-8"))
    report = dechrome.evaluate(snip)
    assert report["word"] is None and report["errors"] == 0
    counts = report["snippets"]["counts"]
    assert sum(counts.values()) == sum(len(p["must"]) + len(p["must_not"]) for p in spec)
    assert 0.0 <= report["snippets"]["f1"] <= 1.0
    out, _ = trained
    mine = dechrome.evaluate(str(snip), model=out, threads=1)
    assert sum(mine["snippets"]["counts"].values()) == sum(counts.values())
    kmeans = dechrome.evaluate(snip, algorithm="kmeans")
    assert kmeans["snippets"]["counts"] != {} and kmeans["algorithm"] != report["algorithm"]


def test_evaluate_scores_a_wcxb_corpus_and_refuses_a_missing_one(tmp_path):
    report = dechrome.evaluate(SAMPLE)
    assert report["snippets"] is None
    assert 0.0 < report["word"]["overall"]["f1"] <= 1.0
    assert report["metadata"] is not None
    with pytest.raises(dechrome.DechromeError):
        dechrome.evaluate(tmp_path)
    with pytest.raises(dechrome.ModelError):
        (tmp_path / "junk.model").write_bytes(b"not a model")
        dechrome.evaluate(SAMPLE, model=tmp_path / "junk.model")
