#!/usr/bin/env python3
"""Time PyYAML's safe_load on files, in this process (make bench): for each
file, the median seconds of one safe_load over batches of calls.

    pyyaml_time.py FILE...      prints "<seconds> <file>" per file
"""
import sys
import time

import yaml


def per_call(text, budget=0.3):
    t0 = time.perf_counter()
    yaml.safe_load(text)
    one = max(time.perf_counter() - t0, 1e-6)
    batch = max(1, int(0.02 / one))
    samples = []
    start = time.perf_counter()
    while len(samples) < 3 or (time.perf_counter() - start < budget and len(samples) < 15):
        t0 = time.perf_counter()
        for _ in range(batch):
            yaml.safe_load(text)
        samples.append((time.perf_counter() - t0) / batch)
    samples.sort()
    return samples[len(samples) // 2]


for path in sys.argv[1:]:
    with open(path) as f:
        text = f.read()
    print("%.9f %s" % (per_call(text), path), flush=True)
