#!/usr/bin/env python3
"""Expectations of tests/cli/dialects.t, computed from the raw JSON of the
torch 1.8-1.10 traces without vprof's code (run by hand; the .t holds its
output).

  steps:  per ProfilerStep#N (Operator events, ts/dur in us): the backward
          pass runs from the first autograd node that starts in the step
          (an Operator named <Name>Backward<digits> or
          torch::autograd::AccumulateGrad) to the last end of one, clipped
          to the step; forward from the step's start to there, less data
          loading (enumerate(DataLoader)*) and Optimizer.step#* inside it.
  memory: per (Device Type, Device Id), the running sum of [memory] Bytes
          in file order; its maximum (the earliest of equals) and the last
          value.
  edges:  each runtime call (cat Runtime/cuda_runtime/cuda_driver/*_runtime)
          that is not a launch: before the first call that launched GPU
          work, after the last one ended, outside every step, or the
          program's.
"""
import collections, gzip, json, re, sys

def load(path):
    d = json.load(gzip.open(path))
    return d['traceEvents'] if isinstance(d, dict) else d

def steps(path):
    ev = load(path)
    ops = [e for e in ev if e.get('ph') == 'X' and e.get('cat') in ('Operator', 'cpu_op')]
    node = re.compile(r'^[^ ]*Backward\d*$')
    def auto(n):
        return bool(node.match(n)) or n == 'torch::autograd::AccumulateGrad' or \
            n.startswith('autograd::engine::evaluate_function:')
    def inside(iv, a, b):
        iv = sorted(iv); tot = 0; cur = None
        for s, e in iv:
            s, e = max(s, a), min(e, b)
            if e <= s: continue
            if cur and s <= cur[1]: cur[1] = max(cur[1], e)
            else:
                if cur: tot += cur[1] - cur[0]
                cur = [s, e]
        return tot + (cur[1] - cur[0] if cur else 0)
    data = [(e['ts'], e['ts'] + e['dur']) for e in ops if e['name'].startswith('enumerate(DataLoader)')]
    opt = [(e['ts'], e['ts'] + e['dur']) for e in ops if e['name'].startswith('Optimizer.step#')]
    bwd = sorted((e['ts'], e['ts'] + e['dur']) for e in ops if auto(e['name']))
    for s in sorted((e for e in ops if re.match(r'ProfilerStep#\d+$', e['name'])), key=lambda e: e['ts']):
        a, b = s['ts'], s['ts'] + s['dur']
        mine = [iv for iv in bwd if a <= iv[0] < b]
        b0 = b1 = b
        if mine:
            b0 = mine[0][0]; b1 = min(max(e for _, e in mine), b)
        both = data + opt
        print(s['name'], 'forward_us', (b0 - a) - inside(both, a, b0),
              'backward_us', (b1 - b0) - inside(both, b0, b1), 'autograd_ops', len(mine))

def memory(path):
    run = collections.OrderedDict()
    for e in load(path):
        if e.get('name') != '[memory]': continue
        k = (e['args']['Device Type'], e['args']['Device Id'])
        r = run.setdefault(k, [0, None, None, 0])
        r[0] += e['args']['Bytes']; r[3] += 1
        if r[1] is None or r[0] > r[1]: r[1], r[2] = r[0], e['ts']
    for k, (last, peak, ts, n) in sorted(run.items()):
        print(k, 'events', n, 'peak_B', peak, 'peak_ts_us', ts, 'final_B', last)

def edges(path):
    ev = [e for e in load(path) if e.get('ph') == 'X' and 'ts' in e]
    rt = lambda c: c in ('Runtime', 'cuda_runtime', 'cuda_driver') or (c or '').endswith(('_runtime', '_driver'))
    gpu = ('kernel', 'Kernel', 'gpu_memcpy', 'gpu_memset', 'Memcpy', 'Memset')
    calls = [e for e in ev if rt(e.get('cat'))]
    by = {e.get('args', {}).get('correlation'): e for e in calls}
    launches = [by[c] for c in (e.get('args', {}).get('correlation') for e in ev if e.get('cat') in gpu) if c in by]
    first = min(float(e['ts']) for e in launches)
    last = max(float(e['ts']) + float(e['dur']) for e in launches)
    st = [(float(e['ts']), float(e['ts']) + float(e['dur'])) for e in ev
          if re.match(r'ProfilerStep#\d+$', e['name']) and e.get('cat') != 'gpu_user_annotation']
    out = collections.Counter(); tim = collections.Counter()
    for e in calls:
        t = float(e['ts'])
        k = 'before' if t < first else 'after' if t >= last else \
            'outside' if st and not any(a <= t < b for a, b in st) else 'program'
        out[k, e['name']] += 1; tim[k, e['name']] += float(e['dur'])
    for (k, n), c in sorted(out.items()):
        if 'Launch' not in n: print(k, n, c, round(tim[k, n], 3))

if __name__ == '__main__':
    {'steps': steps, 'memory': memory, 'edges': edges}[sys.argv[1]](sys.argv[2])
