#!/usr/bin/env python3
"""The OpenCL path's sync primitives on a GPU against CUDA's own.

Reads, from the files given (or stdin), the CSV rows of
`weft bench sync --device cuda --csv F` and of bench_cuda_sync's stdout,
made on the same GPU in the same session, and prints each Weft row's
rate beside its references at the same number of groups, with the ratio
to the best of them:
  weft_global_barrier() and weft_barrier_wait   grid.sync()
  mutex                                         libcu++ binary_semaphore
  semaphore at each initial count               libcu++ counting_semaphore
                                                and paper_sleeping
Usage: compare_sync.py weft.csv cuda.csv
"""
import fileinput

weft, ref = {}, {}
for line in fileinput.input():
    f = line.strip().split(',')
    # weft bench sync: measure,primitive,init,impl,groups,threads,ops,
    # seconds,ops_per_s,ns_per_op
    if len(f) == 10 and f[0] == 'rate':
        weft[(f[1], f[2] or '0', f[3], int(f[4]))] = float(f[8])
    # bench_cuda_sync: primitive,impl,init,blocks,ops_per_s
    elif len(f) == 5 and f[0] in ('barrier', 'mutex', 'semaphore'):
        ref[(f[0], f[1], f[2], int(f[3]))] = float(f[4])

REFERENCES = {
    'global_barrier': [('barrier', 'grid.sync')],
    'barrier': [('barrier', 'grid.sync')],
    'mutex': [('mutex', 'libcu++_binary_semaphore')],
    'semaphore': [('semaphore', 'libcu++_counting_semaphore'),
                  ('semaphore', 'paper_sleeping')],
}

for primitive, init, impl in sorted({k[:3] for k in weft}):
    title = f"{primitive} {impl}" + (f" at {init}" if init != '0' else '')
    lines = []
    for groups in sorted(g for p, i, m, g in weft if (p, i, m) == (primitive, init, impl)):
        rate = weft[(primitive, init, impl, groups)]
        refs = [(name, ref[(p, name, init, groups)])
                for p, name in REFERENCES[primitive]
                if (p, name, init, groups) in ref]
        if refs:
            best = max(r for _, r in refs)
            lines.append(f"  {groups:5d} groups: weft {rate:.3g}  " +
                         "  ".join(f"{n} {r:.3g}" for n, r in refs) +
                         f"  -> {rate / best:.2f}x")
    if lines:
        print(title + ':')
        print('\n'.join(lines))
