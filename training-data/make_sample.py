#!/usr/bin/env python3
"""Draws training-data/sample/ from WCXB dev (../shared/corpora/wcxb-dev).

Deterministic: for each page type, the pages with the lowest ids whose domain
is not yet in the sample (12 articles, 4 of every other type). Copies the
ground truth and the gzipped HTML unchanged and writes a metadata.json for the
drawn pages. Run from the repository root:

    python3 training-data/make_sample.py ../shared/corpora/wcxb-dev training-data/sample
"""
import json, shutil, sys
from pathlib import Path
from urllib.parse import urlparse

QUOTA = {'article': 12, 'forum': 4, 'product': 4, 'collection': 4, 'listing': 4, 'documentation': 4, 'service': 4}


def main(src, dst):
    src, dst = Path(src), Path(dst)
    meta = json.load(open(src / 'metadata.json'))['files']
    taken, domains, files = {t: 0 for t in QUOTA}, set(), {}
    for gt in sorted((src / 'ground-truth').glob('*.json')):
        g = json.load(open(gt, encoding='utf-8'))
        t = g['_internal']['page_type']['primary']
        dom = meta.get(gt.stem, {}).get('domain') or urlparse(g.get('url', '')).hostname or gt.stem
        dom = dom[4:] if dom.startswith('www.') else dom
        if taken.get(t, 99) >= QUOTA.get(t, 0) or dom in domains or not (g['ground_truth'].get('main_content') or '').strip():
            continue
        taken[t] += 1
        domains.add(dom)
        files[gt.stem] = {'split': 'dev', 'page_type': t, 'domain': dom}
    (dst / 'ground-truth').mkdir(parents=True, exist_ok=True)
    (dst / 'html').mkdir(parents=True, exist_ok=True)
    for i in files:
        shutil.copy(src / 'ground-truth' / f'{i}.json', dst / 'ground-truth' / f'{i}.json')
        shutil.copy(src / 'html' / f'{i}.html.gz', dst / 'html' / f'{i}.html.gz')
    shutil.copy(src / 'LICENSE', dst / 'LICENSE')
    json.dump({'name': 'WCXB dev sample for dechrome tests', 'license': 'CC-BY-4.0', 'files': files},
              open(dst / 'metadata.json', 'w'), indent=1, sort_keys=True)
    print(f'{len(files)} pages: {taken}')


if __name__ == '__main__':
    main(*sys.argv[1:3])
