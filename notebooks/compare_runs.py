"""Compares two training runs' out-of-fold page scores (`pages_out_of_fold` of
their metrics files) by how many pages the page's domain has.

    python3 notebooks/compare_runs.py A.metrics.json B.metrics.json
"""
import json, sys, collections
a = json.load(open(sys.argv[1]))['pages_out_of_fold']
b = json.load(open(sys.argv[2]))['pages_out_of_fold']
key = lambda p: (p['corpus'], p['id'])
bb = {key(p): p for p in b}
dom = collections.Counter(p['domain'] for p in a)
def score(p):
    if p.get('word'): return p['word']['f1']
    return None
groups = collections.defaultdict(list)
for p in a:
    q = bb[key(p)]
    sa, sb = score(p), score(q)
    if sa is None: continue
    n = dom[p['domain']]
    g = '1 page' if n == 1 else ('2 pages' if n == 2 else '3+ pages')
    groups[(p['corpus'], g)].append((sa, sb))
    groups[('all word corpora', g)].append((sa, sb))
for k in sorted(groups):
    v = groups[k]
    ma = sum(x for x, _ in v) / len(v); mb = sum(y for _, y in v) / len(v)
    print(f"{k[0]:18} {k[1]:9} {len(v):5} pages  A {ma:.4f}  B {mb:.4f}  B-A {mb-ma:+.4f}")
