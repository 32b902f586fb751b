"""Would a third stage, or smoothing the second's probabilities, pay?

A lab, not a test: it reads the out-of-fold blocks of the shipped
configuration (`cargo run --release --example oof_lab -- --out FILE`) and
replays, on the same domain-grouped folds, two things the code does not do:

* a third stage: a gradient-boosted classifier (scikit-learn's
  HistGradientBoostingClassifier, 200 trees, depth 6) over columns computed
  from the second stage's probabilities alone (neighbours, windows, the
  blocks under the same parent path and the same path, the page's mean and
  kept share, the distance to the kept region), fitted on four folds and
  scored on the fifth;
* smoothing: p' = (1 - a) p + a m, with m the word-weighted mean
  probability of the block's window or of the blocks of its path.

Each fold's threshold is chosen on the other four folds (grid 0.30-0.60,
step 0.02) by the mean over the corpora of their mean page F1. Page F1 is
the block scorer's (kept words times their matched share), the classifier
alone, without the selection rules, so it is comparable between the rows
it prints, not with `extract`'s figures.

    pip install numpy scikit-learn
    python3 notebooks/third_stage_lab.py OOF.tsv
"""

import collections
import csv
import math
import sys

import numpy as np

COLUMNS = (
    "corpus id type lang fold idx prob thr kept label known matched words "
    "link_words comment_region path text"
).split()


def read_pages(path):
    """The TSV's rows grouped by (corpus, page id), in file order."""
    csv.field_size_limit(10**9)
    pages = collections.OrderedDict()
    with open(path, encoding="utf-8") as f:
        for row in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            pages.setdefault((row[0], row[1]), []).append(dict(zip(COLUMNS, row)))
    return pages


def group_means(keys, p, w):
    """Word-weighted mean of p over the blocks sharing each key, and log count."""
    sums = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for k, pi, wi in zip(keys, p, w):
        s = sums[k]
        s[0] += pi * wi
        s[1] += wi
        s[2] += 1
    mean = np.array([sums[k][0] / sums[k][1] if sums[k][1] else 0.0 for k in keys])
    size = np.array([math.log1p(sums[k][2]) for k in keys])
    return mean, size


def page_rows(blocks):
    """Third-stage columns of one page's blocks, from their probabilities."""
    p = np.array([float(b["prob"]) for b in blocks])
    w = np.array([float(b["words"]) for b in blocks])
    links = np.array([float(b["link_words"]) for b in blocks])
    n = len(blocks)
    thr = float(blocks[0]["thr"])
    total = w.sum() or 1.0
    page_mean = (p * w).sum() / total
    kept_share = (w * (p >= thr)).sum() / total
    rank = np.empty(n)
    rank[np.argsort(-p)] = np.arange(n) / max(n - 1, 1)
    kept = np.where(p >= thr)[0]
    first, last = (kept[0], kept[-1]) if len(kept) else (n, -1)
    cw = np.cumsum(w)
    paths = [b["path"] for b in blocks]
    parents = [q.rsplit(">", 1)[0] if ">" in q else "" for q in paths]
    parent_mean, parent_size = group_means(parents, p, w)
    path_mean, path_size = group_means(paths, p, w)

    def at(k):
        return p[k] if 0 <= k < n else 0.0

    rows = []
    for j in range(n):
        before = cw[first - 1] - cw[j] if j < first < n else 0.0
        after = cw[j - 1] - cw[last] if j > last >= 0 else 0.0
        rows.append([
            p[j], at(j - 1), at(j + 1), at(j - 2), at(j + 2),
            p[max(0, j - 1):j + 2].mean(), p[max(0, j - 5):j + 6].mean(),
            p[max(0, j - 3):j].max() if j > 0 else 0.0,
            p[j + 1:j + 4].max() if j + 1 < n else 0.0,
            parent_mean[j], parent_size[j], path_mean[j], path_size[j],
            page_mean, kept_share, p.max(), rank[j], p[j] - page_mean,
            math.log1p(max(before, 0.0)), math.log1p(max(after, 0.0)),
            math.log1p(w[j]), links[j] / w[j] if w[j] else 0.0,
            float(blocks[j]["comment_region"]), j / n, p[j] - thr,
        ])
    return rows


# Indices of the smoothing means among the columns of `page_rows`.
SMOOTHERS = {"window of 3": 5, "window of 11": 6, "parent path": 9, "path": 11}


def build(pages):
    """Columns, labels, weights and per-row (corpus, page, fold, words, match)."""
    x, y, weight, meta = [], [], [], []
    for (corpus, pid), blocks in pages.items():
        total = sum(float(b["words"]) for b in blocks) or 1.0
        for b, row in zip(blocks, page_rows(blocks)):
            known = b["known"] == "1"
            match = float(b["matched"])
            x.append(row)
            y.append(1 if match >= 0.5 else 0)
            weight.append(float(b["words"]) / math.sqrt(total) if known else 0.0)
            meta.append((corpus, pid, int(b["fold"]), float(b["words"]),
                         match if known else None))
    return np.array(x, dtype=np.float32), np.array(y), np.array(weight), meta


def corpus_f1(meta, keep, rows=None):
    """Mean page F1 per corpus over `rows` (default: all) of the decisions."""
    counts = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    for j in range(len(meta)) if rows is None else rows:
        corpus, pid, _, words, match = meta[j]
        if match is None:
            continue
        c = counts[(corpus, pid)]
        if keep[j]:
            c[0] += words * match
            c[1] += words * (1 - match)
        else:
            c[2] += words * match
    per = collections.defaultdict(list)
    for (corpus, _), (tp, fp, fn) in counts.items():
        if tp + fn == 0:
            per[corpus].append(1.0 if tp + fp == 0 else 0.0)
        else:
            per[corpus].append(2 * tp / (2 * tp + fp + fn))
    return {c: float(np.mean(v)) for c, v in sorted(per.items())}


def decide_out_of_fold(meta, folds, prob):
    """Each fold's decisions at the threshold its other folds prefer."""
    grid = np.round(np.arange(0.30, 0.61, 0.02), 2)
    keep = np.zeros(len(prob), dtype=bool)
    for k in sorted(set(folds)):
        others = np.where(folds != k)[0]
        best = max(grid, key=lambda t: np.mean(list(
            corpus_f1(meta, prob >= t, others).values())))
        keep[folds == k] = prob[folds == k] >= best
    return keep


def third_stage(x, y, weight, folds):
    """Out-of-fold probabilities of a third stage fitted on the other folds."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    out = np.zeros(len(y))
    for k in sorted(set(folds)):
        train = (folds != k) & (weight > 0)
        model = HistGradientBoostingClassifier(
            max_iter=200, learning_rate=0.1, max_depth=6, random_state=42)
        model.fit(x[train], y[train], sample_weight=weight[train])
        out[folds == k] = model.predict_proba(x[folds == k])[:, 1]
    return out


def show(name, scores):
    mean = np.mean(list(scores.values()))
    print(f"{name:28} " + "  ".join(f"{c} {v:.4f}" for c, v in scores.items())
          + f"  mean {mean:.4f}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    x, y, weight, meta = build(read_pages(sys.argv[1]))
    folds = np.array([m[2] for m in meta])
    p = x[:, 0]
    show("second stage", corpus_f1(meta, decide_out_of_fold(meta, folds, p)))
    for name, col in SMOOTHERS.items():
        for a in (0.15, 0.3, 0.5):
            smoothed = (1 - a) * p + a * x[:, col]
            show(f"smoothed, {name}, a {a}",
                 corpus_f1(meta, decide_out_of_fold(meta, folds, smoothed)))
    p3 = third_stage(x, y, weight, folds)
    show("third stage", corpus_f1(meta, decide_out_of_fold(meta, folds, p3)))


if __name__ == "__main__":
    main()
