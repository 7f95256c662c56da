#!/usr/bin/env python3
"""Independent reference implementation of the frognano math contract.

Written from the text of /work/shared/SPEC.md alone (no look at the TypeScript
sources). Generates deterministic cases (fixed seed) and writes
test/reference/spec-reference.json, a mapping

    function name -> [ { "args": [...], "expected": ... }, ... ]

`args` is the positional argument list of the TypeScript call (options object
last). Expected values are float64 (exact rationals via fractions.Fraction where
the formula allows, rounded to 14 significant digits to keep the file small:
the consuming test uses an absolute tolerance of 1e-9). SPEC's `null` is JSON
null; +/-Infinity is written as the strings "Infinity" / "-Infinity".

Run:  /usr/bin/python3 bench/reference/spec_reference.py
"""

import json
import math
import os
import random
from fractions import Fraction
from itertools import combinations

SEED = 20240611
rng = random.Random(SEED)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, '..', '..', 'test', 'reference', 'spec-reference.json'))

INF = float('inf')


def r14(x):
    """Round a float to 14 significant digits (shorter JSON, error << 1e-9)."""
    if x is None:
        return None
    if isinstance(x, bool):
        return x
    if isinstance(x, Fraction):
        x = float(x)
    if isinstance(x, int):
        return x
    if math.isinf(x):
        return x
    if x == 0:
        return 0.0
    y = float('%.14g' % x)
    if y == int(y) and abs(y) < 2 ** 53:
        return int(y)  # "1" instead of "1.0"
    return y


def enc(obj):
    """Encode +/-Infinity as strings for JSON."""
    if isinstance(obj, float):
        if math.isinf(obj):
            return 'Infinity' if obj > 0 else '-Infinity'
        if math.isnan(obj):
            raise ValueError('NaN in reference data')
        return obj
    if isinstance(obj, list):
        return [enc(v) for v in obj]
    if isinstance(obj, tuple):
        return [enc(v) for v in obj]
    if isinstance(obj, dict):
        return {k: enc(v) for k, v in obj.items()}
    return obj


# ---------------------------------------------------------------------------
# §1 Rewards
# ---------------------------------------------------------------------------

def log_length_reward(n, budget, alpha):
    if n <= budget:
        return 1.0
    return 1.0 - alpha * math.log(n / budget)


def shape_reward(outcome, opts):
    budget = opts['budget']
    alpha = opts['alpha']
    truncated_reward = opts.get('truncatedReward', 0.5)
    length_penalty = opts.get('lengthPenalty', True)
    floor = opts.get('floor', -INF)
    if not outcome['success']:
        return 0.0
    if outcome['truncated']:
        return truncated_reward
    if length_penalty:
        return max(floor, log_length_reward(outcome['assistantTokens'], budget, alpha))
    return 1.0


# ---------------------------------------------------------------------------
# §2 Group-relative advantages
# ---------------------------------------------------------------------------

def group_advantages(groups, opts):
    scale = opts.get('scale', 'std')
    std_kind = opts.get('std', 'sample')
    eps = opts.get('eps', 1e-6)
    filter_by = opts.get('filterBy')
    advs, kept = [], []
    for i, g in enumerate(groups):
        f = filter_by[i] if filter_by is not None else g
        n = len(g)
        if n <= 1 or all(v == f[0] for v in f):
            advs.append([0.0] * n)
            kept.append(False)
            continue
        fr = [Fraction(v) for v in g]
        mean = sum(fr) / n
        dev = [v - mean for v in fr]
        if scale == 'none':
            advs.append([float(d) for d in dev])
        else:
            ss = sum(d * d for d in dev)
            var = ss / (n - 1) if std_kind == 'sample' else ss / n
            sd = math.sqrt(float(var))
            denom = sd + eps
            advs.append([float(d) / denom for d in dev])
        kept.append(True)
    return {'advantages': advs, 'kept': kept}


def broadcast_to_tokens(seq_adv, masks):
    return [[seq_adv[i] if m == 1 else 0.0 for m in mask] for i, mask in enumerate(masks)]


# ---------------------------------------------------------------------------
# §3 DPPO mask
# ---------------------------------------------------------------------------

def dppo_thresholds(opts):
    delta = opts.get('delta', 0.2)
    lo = opts.get('deltaLow', delta)
    hi = opts.get('deltaHigh', delta)
    return lo, hi


def dppo_mask(logp_new, logp_roll, adv, opts):
    lo, hi = dppo_thresholds(opts)
    out = []
    for a, ln, lr in zip(adv, logp_new, logp_roll):
        dp = math.exp(ln) - math.exp(lr)
        drop = (a > 0 and dp > hi) or (a <= 0 and dp < -lo)
        out.append(0 if drop else 1)
    return out


# ---------------------------------------------------------------------------
# §4 GAGAR
# ---------------------------------------------------------------------------

def gagar_weighted_score(s):
    return (0.30 * s['approach'] + 0.25 * s['precision'] + 0.20 * s['minimality']
            + 0.15 * s['sideEffects'] + 0.10 * s['consistency'])


def gagar_coefficients(cands):
    t1 = sorted({c['rank'] for c in cands if c['tier'] == 'T1'})
    t2 = sorted({c['rank'] for c in cands if c['tier'] == 'T2'})
    m = len(t2)
    out = []
    for c in cands:
        if c['tier'] == 'T1':
            out.append(1.0 if c['rank'] == t1[0] else 0.9)
        elif c['tier'] == 'T2':
            k = t2.index(c['rank'])
            out.append(0.85 if m == 1 else float(Fraction(85, 100) - Fraction(45, 100) * Fraction(k, m - 1)))
        else:
            out.append(0.2)
    return out


def gagar_redistribute(rewards, coeffs, opts):
    lam_max = opts.get('lambdaMax', 1.5)
    n = len(rewards)
    if all(r == rewards[0] for r in rewards):
        return [0.0] * n
    R = [Fraction(r) for r in rewards]
    mean = sum(R) / n
    A = [r - mean for r in R]
    S = [i for i in range(n) if A[i] > 0]
    c = [Fraction(x) for x in coeffs]
    lam = sum(A[i] for i in S) / sum(c[i] * A[i] for i in S)
    if lam_max == INF or lam <= Fraction(lam_max):
        return [float(lam * c[i] * A[i]) if i in S else float(A[i]) for i in range(n)]
    lm = Fraction(lam_max)
    B = [lm * c[i] * A[i] if i in S else A[i] for i in range(n)]
    mb = sum(B) / n
    return [float(b - mb) for b in B]


# ---------------------------------------------------------------------------
# §6 Metrics
# ---------------------------------------------------------------------------

def pass_at_k(n, c, k):
    if n - c < k:
        return 1.0
    return float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))


def pass_at_k_product(n, c, k):
    """The product form written in SPEC, as a cross-check of the comb form."""
    if n - c < k:
        return 1.0
    p = Fraction(1)
    for i in range(n - c + 1, n + 1):
        p *= 1 - Fraction(k, i)
    return float(1 - p)


def pass_at_short(cands):
    best = 0
    for i, c in enumerate(cands):
        if c['length'] < cands[best]['length']:
            best = i
    return bool(cands[best]['passed'])


def reciprocal_rank_reward(ranking, passed):
    for pos, idx in enumerate(ranking):
        if passed[idx]:
            return 1.0 / (pos + 1)
    return 0.0


def argmax_first(xs):
    b = 0
    for i, x in enumerate(xs):
        if x > xs[b]:
            b = i
    return b


def bon_accuracy(tasks):
    hits = sum(1 for t in tasks if t['ut'][argmax_first(t['eval'])] == max(t['ut']))
    return float(Fraction(hits, len(tasks)))


def mean_regret(tasks):
    tot = sum(Fraction(max(t['ut'])) - Fraction(t['ut'][argmax_first(t['eval'])]) for t in tasks)
    return float(tot / len(tasks))


def sign(x):
    return (x > 0) - (x < 0)


def kendall_tau(tasks):
    tot, cnt = 0, 0
    for t in tasks:
        ut, ev = t['ut'], t['eval']
        for i, j in combinations(range(len(ut)), 2):
            if ut[i] != ut[j]:
                cnt += 1
                tot += sign(ut[i] - ut[j]) * sign(ev[i] - ev[j])
    if cnt == 0:
        return None  # not asserted: SPEC leaves it open (generator avoids it)
    return float(Fraction(tot, cnt))


def pearson(x, y):
    X = [Fraction(v) for v in x]
    Y = [Fraction(v) for v in y]
    n = len(X)
    mx, my = sum(X) / n, sum(Y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(X, Y))
    sxx = sum((a - mx) ** 2 for a in X)
    syy = sum((b - my) ** 2 for b in Y)
    return float(sxy) / math.sqrt(float(sxx * syy))


def avg_ranks(x):
    order = sorted(range(len(x)), key=lambda i: x[i])
    ranks = [Fraction(0)] * len(x)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
            j += 1
        r = Fraction(i + 1 + j + 1, 2)  # average of 1-based ranks i+1..j+1
        for k in range(i, j + 1):
            ranks[order[k]] = r
        i = j + 1
    return ranks


def varies(v):
    return any(a != v[0] for a in v)


def macro(tasks, fn):
    vals = []
    for t in tasks:
        ut, ev = t['ut'], t['eval']
        if len(ut) >= 2 and varies(ut) and varies(ev):
            vals.append(fn(ut, ev))
    if not vals:
        return None
    return math.fsum(vals) / len(vals)


def macro_pearson(tasks):
    return macro(tasks, pearson)


def macro_spearman(tasks):
    return macro(tasks, lambda u, e: pearson(avg_ranks(u), avg_ranks(e)))


def threshold_score(tasks, theta):
    sel = [Fraction(u) for t in tasks for u, e in zip(t['ut'], t['eval']) if e >= theta]
    if not sel:
        return {'mean': None, 'count': 0}
    return {'mean': float(sum(sel) / len(sel)), 'count': len(sel)}


def fleiss_kappa(counts):
    N = len(counts)
    n = sum(counts[0])
    k = len(counts[0])
    total = N * n
    p = [Fraction(sum(row[j] for row in counts), total) for j in range(k)]
    P = [Fraction(sum(c * c for c in row) - n, n * (n - 1)) for row in counts]
    Pbar = sum(P) / N
    Pe = sum(pj * pj for pj in p)
    if Pe == 1:
        return None  # 0/0: not asserted (generator avoids it)
    return float((Pbar - Pe) / (1 - Pe))


# ---------------------------------------------------------------------------
# §7, §8
# ---------------------------------------------------------------------------

def resolve_rate(outcomes):
    return float(Fraction(sum(1 for o in outcomes if o), len(outcomes)))


def compaction_budget(o):
    alpha = o.get('alpha', 0.2)
    w, pt = o['window'], o['promptTokens']
    return max(1, w - pt - math.floor(alpha * w))


# ---------------------------------------------------------------------------
# Case generation
# ---------------------------------------------------------------------------

cases = {}


def add(name, args, expected):
    cases.setdefault(name, []).append({'args': args, 'expected': expected})


def rnd(x, d=4):
    return round(x, d)


# --- logLengthReward -------------------------------------------------------
for budget, n, alpha in [(100, 100, 0.5), (100, 101, 0.5), (100, 0, 0.5), (1, 0, 0.0), (1, 1, 1.0),
                         (1, 2, 1.0), (32768, 65536, 0.1), (1000, 1e6, 0.25), (50, 49, 3.0),
                         (8192, 8193, 0.0), (8192, 16384, 0.2), (4096, 40960, 1.0)]:
    n = int(n)
    add('logLengthReward', [n, budget, alpha], r14(log_length_reward(n, budget, alpha)))
for _ in range(250):
    budget = rng.choice([1, 2, 10, 100, 512, 1000, 4096, 8192, 16384, 32768]) + rng.choice([0, 0, rng.randint(0, 999)])
    mode = rng.random()
    if mode < 0.25:
        n = rng.randint(0, budget)
    elif mode < 0.35:
        n = budget + rng.choice([-1, 0, 1])
        n = max(0, n)
    else:
        n = budget + rng.randint(1, budget * rng.choice([1, 3, 10]))
    alpha = rng.choice([0, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, rnd(rng.uniform(0, 3), 3)])
    add('logLengthReward', [n, budget, alpha], r14(log_length_reward(n, budget, alpha)))

# --- shapeReward -----------------------------------------------------------
for _ in range(200):
    success = rng.random() < 0.75
    truncated = rng.random() < 0.3
    budget = rng.choice([100, 1000, 4096, 8192, 32768])
    tokens = rng.choice([rng.randint(0, budget), budget, rng.randint(budget + 1, budget * 12)])
    opts = {'budget': budget, 'alpha': rng.choice([0, 0.1, 0.2, 0.5, 1.0, rnd(rng.uniform(0, 2), 3)])}
    if rng.random() < 0.4:
        opts['truncatedReward'] = rng.choice([0, 0.25, 0.5, 0.75, 1, rnd(rng.random(), 3)])
    if rng.random() < 0.3:
        opts['lengthPenalty'] = rng.random() < 0.5
    if rng.random() < 0.4:
        opts['floor'] = rng.choice([-1, -0.5, 0, 0.1, 0.5, 0.9, -INF])
    outcome = {'success': success, 'truncated': truncated, 'assistantTokens': tokens}
    add('shapeReward', [outcome, opts], r14(shape_reward(outcome, opts)))


# --- groupAdvantages -------------------------------------------------------
def rand_group(size, kind):
    if kind == 'binary':
        return [rng.randint(0, 1) for _ in range(size)]
    if kind == 'allsame':
        v = rng.choice([0, 1, 0.5, 0.3])
        return [v] * size
    if kind == 'ties':
        vals = [rnd(rng.uniform(-1, 2), 3) for _ in range(rng.randint(1, 3))]
        return [rng.choice(vals) for _ in range(size)]
    if kind == 'shaped':  # 0, truncatedReward 0.5, or a length-shaped reward in (0,1]
        return [rng.choice([0, 0.5, 1, rnd(1 - 0.2 * math.log(rng.uniform(1, 5)), 4)]) for _ in range(size)]
    return [rnd(rng.uniform(-3, 3), 4) for _ in range(size)]


# fixed cases
add('groupAdvantages', [[[1, 0, 0, 1], [1, 1, 1, 1], [0.7], [0, 0, 0, 1]], {}],
    group_advantages([[1, 0, 0, 1], [1, 1, 1, 1], [0.7], [0, 0, 0, 1]], {}))
add('groupAdvantages', [[[1, 0], [0.5, 0.5, 0.5]], {'scale': 'none'}],
    group_advantages([[1, 0], [0.5, 0.5, 0.5]], {'scale': 'none'}))
for g, fb in [([0.8, 0.8, 0.0], [1, 1, 0]), ([0.9, 0.7, 0.5], [1, 1, 1]), ([0.5, 0.5, 0.5], [1, 0, 1]),
              ([1, 0.6, 0, 0], [1, 1, 0, 0])]:
    for opts in [{}, {'std': 'population'}, {'scale': 'none'}]:
        o = dict(opts)
        o['filterBy'] = [fb]
        add('groupAdvantages', [[g], o], group_advantages([g], o))

for _ in range(120):
    ng = rng.randint(1, 4)
    groups, fbs = [], []
    use_filter = rng.random() < 0.35
    for _ in range(ng):
        size = rng.choice([1] if rng.random() < 0.05 else list(range(2, 17)))
        kind = rng.choice(['binary', 'binary', 'allsame', 'ties', 'shaped', 'cont'])
        g = rand_group(size, kind)
        groups.append(g)
        if use_filter:
            if kind == 'shaped':
                fbs.append([1 if v > 0 else 0 for v in g])
            else:
                fbs.append([rng.randint(0, 1) for _ in range(size)] if rng.random() < 0.7 else [1] * size)
    opts = {}
    if rng.random() < 0.4:
        opts['scale'] = rng.choice(['std', 'none'])
    if rng.random() < 0.4:
        opts['std'] = rng.choice(['sample', 'population'])
    if rng.random() < 0.3:
        opts['eps'] = rng.choice([1e-8, 1e-6, 1e-4, 0.01, 0.5])
    if use_filter:
        opts['filterBy'] = fbs
    res = group_advantages(groups, opts)
    res = {'advantages': [[r14(v) for v in row] for row in res['advantages']], 'kept': res['kept']}
    add('groupAdvantages', [groups, opts], res)
# round the fixed ones too
for c in cases['groupAdvantages']:
    c['expected'] = {'advantages': [[r14(v) for v in row] for row in c['expected']['advantages']],
                     'kept': c['expected']['kept']}

# --- broadcastToTokens -----------------------------------------------------
for _ in range(60):
    ns = rng.randint(1, 6)
    seq = [rng.choice([0, 1, -1, rnd(rng.uniform(-3, 3), 5)]) for _ in range(ns)]
    masks = []
    for _ in range(ns):
        L = rng.randint(0, 12)
        # prompt (0) then mixed assistant (1) / tool (0) tokens
        p = rng.randint(0, L)
        masks.append([0] * p + [1 if rng.random() < 0.7 else 0 for _ in range(L - p)])
    add('broadcastToTokens', [seq, masks], broadcast_to_tokens(seq, masks))

# --- dppoMask --------------------------------------------------------------
DPPO_OPTS = [{}, {'delta': 0.1}, {'delta': 0.3}, {'deltaLow': 0.1}, {'deltaHigh': 0.05},
             {'deltaLow': 0.05, 'deltaHigh': 0.3}, {'delta': 0.4, 'deltaLow': 0.1},
             {'delta': 0.05, 'deltaHigh': 0.5}, {'delta': 1}, {'delta': 0.01}]


def make_token(lo, hi):
    """Return (logpNew, logpRollout, A) with dp at least 1e-9 away from both thresholds."""
    while True:
        kind = rng.random()
        if kind < 0.1:
            lr = 0.0 if rng.random() < 0.5 else rnd(math.log(rng.uniform(1e-6, 1)), 6)
            ln = lr
        else:
            q = rng.choice([rng.uniform(1e-4, 1), rng.uniform(0.5, 1), rng.uniform(0, 0.3)])
            q = max(q, 1e-9)
            near = rng.random() < 0.4  # within 1e-3 of a threshold: keep more digits
            shift = rng.choice([hi + rng.uniform(-1e-3, 1e-3), -lo + rng.uniform(-1e-3, 1e-3)] if near else
                               [rng.uniform(-1, 1), rng.uniform(-0.4, 0.4),
                                hi + rng.uniform(-0.02, 0.02), -lo + rng.uniform(-0.02, 0.02)])
            p = min(1.0, max(1e-9, q + shift))
            dig = 12 if near else 6
            lr = rnd(math.log(q), dig)
            ln = 0.0 if p == 1.0 else rnd(math.log(p), dig)
        lr = min(lr, 0.0)
        ln = min(ln, 0.0)
        a = rng.choice([0, 0, 1, -1, rnd(rng.uniform(-2, 2), 4), rnd(rng.uniform(-1e-3, 1e-3), 6)])
        dp = math.exp(ln) - math.exp(lr)
        if abs(dp - hi) > 1e-9 and abs(dp + lo) > 1e-9:
            return ln, lr, a


for i in range(120):
    opts = DPPO_OPTS[i % len(DPPO_OPTS)]
    lo, hi = dppo_thresholds(opts)
    L = rng.randint(1, 16)
    toks = [make_token(lo, hi) for _ in range(L)]
    ln = [t[0] for t in toks]
    lr = [t[1] for t in toks]
    a = [t[2] for t in toks]
    add('dppoMask', [ln, lr, a, opts], dppo_mask(ln, lr, a, opts))

# --- gagarWeightedScore ----------------------------------------------------
DIMS = ['approach', 'precision', 'minimality', 'sideEffects', 'consistency']
add('gagarWeightedScore', [dict(zip(DIMS, [5, 5, 5, 5, 5]))], 5)
add('gagarWeightedScore', [dict(zip(DIMS, [1, 1, 1, 1, 1]))], 1)
add('gagarWeightedScore', [dict(zip(DIMS, [5, 4, 3, 2, 1]))], r14(0.30 * 5 + 0.25 * 4 + 0.20 * 3 + 0.15 * 2 + 0.10 * 1))
for _ in range(60):
    s = {d: (rng.randint(1, 5) if rng.random() < 0.7 else rnd(rng.uniform(0, 6), 2)) for d in DIMS}
    add('gagarWeightedScore', [s], r14(gagar_weighted_score(s)))

# --- gagarCoefficients -----------------------------------------------------
fixed_cands = [
    [{'tier': 'T1', 'rank': 1}, {'tier': 'T3', 'rank': 1}],
    [{'tier': 'T1', 'rank': 2}, {'tier': 'T1', 'rank': 1}, {'tier': 'T1', 'rank': 1}, {'tier': 'T1', 'rank': 3}],
    [{'tier': 'T2', 'rank': 1}],
    [{'tier': 'T2', 'rank': 1}, {'tier': 'T2', 'rank': 2}],
    [{'tier': 'T2', 'rank': 3}, {'tier': 'T2', 'rank': 1}, {'tier': 'T2', 'rank': 2}, {'tier': 'T2', 'rank': 2}],
    [{'tier': 'T2', 'rank': 10}, {'tier': 'T2', 'rank': 20}, {'tier': 'T2', 'rank': 30},
     {'tier': 'T2', 'rank': 40}, {'tier': 'T2', 'rank': 50}, {'tier': 'T2', 'rank': 60}],
    [{'tier': 'T3', 'rank': 1}, {'tier': 'T3', 'rank': 2}, {'tier': 'T3', 'rank': 2}],
    [{'tier': 'T2', 'rank': 1}, {'tier': 'T1', 'rank': 5}, {'tier': 'T3', 'rank': 0}, {'tier': 'T1', 'rank': 7},
     {'tier': 'T2', 'rank': 4}, {'tier': 'T2', 'rank': 4}],
]
for fc in fixed_cands:
    add('gagarCoefficients', [fc], [r14(v) for v in gagar_coefficients(fc)])
for _ in range(90):
    n = rng.randint(1, 10)
    rank_pool = [1, 2, 3, 4] if rng.random() < 0.8 else [0, 1.5, 2, 2.5, 7]
    cands = [{'tier': rng.choice(['T1', 'T2', 'T2', 'T3']), 'rank': rng.choice(rank_pool)} for _ in range(n)]
    add('gagarCoefficients', [cands], [r14(v) for v in gagar_coefficients(cands)])

# --- gagarRedistribute -----------------------------------------------------
FAIL_C = 0.5
fixed_red = [
    ([1, 1, 0, 0], [1.0, 0.2, FAIL_C, FAIL_C], {'lambdaMax': INF}),   # slides p.6 worked example
    ([1, 1, 0, 0], [1.0, 0.2, FAIL_C, FAIL_C], {}),                   # same, capped at 1.5
    ([1, 1, 0, 0], [1.0, 0.2, FAIL_C, FAIL_C], {'lambdaMax': 2}),
    ([1, 1, 1, 1], [1.0, 0.9, 0.2, 0.85], {}),
    ([0, 0, 0], [FAIL_C] * 3, {}),
    ([1], [1.0], {}),
    ([1, 0], [1.0, FAIL_C], {}),
    ([0, 1, 0, 1, 1], [FAIL_C, 1.0, FAIL_C, 0.5, 0.5], {}),            # lambda exactly 1.5
    ([0, 1, 0, 1, 1], [FAIL_C, 1.0, FAIL_C, 0.5, 0.5], {'lambdaMax': 1}),
    ([1, 0, 1, 0, 1, 0, 0, 0], [0.9, FAIL_C, 0.9, FAIL_C, 0.9, FAIL_C, FAIL_C, FAIL_C], {}),
    ([1, 0, 0, 0, 0, 0, 0, 0], [0.2] + [FAIL_C] * 7, {}),
    ([1, 0, 0, 0, 0, 0, 0, 0], [0.2] + [FAIL_C] * 7, {'lambdaMax': INF}),
]
for rw, cf, op in fixed_red:
    add('gagarRedistribute', [rw, cf, op], [r14(v) for v in gagar_redistribute(rw, cf, op)])
COEF_POOL = [1.0, 0.9, 0.85, 0.7375, 0.625, 0.5125, 0.4, 0.2]
for i in range(150):
    n = rng.randint(2, 16)
    rw = [rng.randint(0, 1) for _ in range(n)]
    cf = []
    for r in rw:
        if r == 1:
            cf.append(rng.choice(COEF_POOL) if rng.random() < 0.75 else rnd(rng.uniform(0.01, 1), 4))
        else:
            cf.append(FAIL_C)
    op = rng.choice([{}, {}, {'lambdaMax': INF}, {'lambdaMax': 1}, {'lambdaMax': 1.25},
                     {'lambdaMax': 1.5}, {'lambdaMax': 2}, {'lambdaMax': 5}])
    add('gagarRedistribute', [rw, cf, op], [r14(v) for v in gagar_redistribute(rw, cf, op)])

# --- passAtK ---------------------------------------------------------------
for n in range(1, 11):
    for c in range(0, n + 1):
        for k in range(1, n + 1):
            e1, e2 = pass_at_k(n, c, k), pass_at_k_product(n, c, k)
            assert abs(e1 - e2) < 1e-15, (n, c, k)
            add('passAtK', [n, c, k], r14(e1))
grid = [(n, c, k) for n in range(11, 31) for c in range(0, n + 1) for k in range(1, n + 1)]
for n, c, k in rng.sample(grid, 600):
    e1, e2 = pass_at_k(n, c, k), pass_at_k_product(n, c, k)
    assert abs(e1 - e2) < 1e-15, (n, c, k)
    add('passAtK', [n, c, k], r14(e1))

# --- passAtShort -----------------------------------------------------------
add('passAtShort', [[{'passed': True, 'length': 10}]], True)
add('passAtShort', [[{'passed': False, 'length': 5}, {'passed': True, 'length': 5}]], False)
add('passAtShort', [[{'passed': True, 'length': 5}, {'passed': False, 'length': 5}]], True)
add('passAtShort', [[{'passed': True, 'length': 9}, {'passed': False, 'length': 3}, {'passed': True, 'length': 4}]], False)
for _ in range(80):
    n = rng.randint(1, 8)
    cands = [{'passed': rng.random() < 0.5, 'length': rng.randint(1, 6) * rng.choice([1, 100])} for _ in range(n)]
    add('passAtShort', [cands], pass_at_short(cands))

# --- reciprocalRankReward --------------------------------------------------
add('reciprocalRankReward', [[2, 0, 1], [True, False, False]], r14(reciprocal_rank_reward([2, 0, 1], [True, False, False])))
add('reciprocalRankReward', [[0, 1, 2], [False, False, False]], 0)
add('reciprocalRankReward', [[0], [True]], 1)
for _ in range(80):
    n = rng.randint(1, 10)
    ranking = list(range(n))
    rng.shuffle(ranking)
    passed = [rng.random() < 0.3 for _ in range(n)]
    add('reciprocalRankReward', [ranking, passed], r14(reciprocal_rank_reward(ranking, passed)))


# --- evaluator metrics -----------------------------------------------------
def rand_task():
    n = rng.choice([1, 2, 2, 3, 4, 4, 5, 6, 8])
    ut_kind = rng.random()
    if ut_kind < 0.3:
        ut = [rng.randint(0, 1) for _ in range(n)]
    elif ut_kind < 0.55:
        ut = [rng.choice([0, 0.25, 0.5, 0.75, 1]) for _ in range(n)]
    elif ut_kind < 0.65:
        ut = [rng.choice([0.4, 0.6])] * n
    else:
        ut = [rnd(rng.random(), 3) for _ in range(n)]
    ev_kind = rng.random()
    if ev_kind < 0.45:
        ev = [rng.randint(1, 5) for _ in range(n)]
    elif ev_kind < 0.55:
        ev = [3] * n
    elif ev_kind < 0.75:
        # correlated with ut
        ev = [rnd(u * 80 + rng.uniform(0, 30), 1) for u in ut]
    else:
        ev = [rnd(rng.uniform(0, 100), 1) for _ in range(n)]
    return {'ut': ut, 'eval': ev}


fixed_tasks = [
    [{'ut': [0.2, 0.9, 0.5], 'eval': [1, 5, 3]}],
    [{'ut': [1, 0, 1], 'eval': [4, 4, 2]}],
    [{'ut': [0.5, 0.5], 'eval': [1, 2]}, {'ut': [0, 1, 0.5], 'eval': [3, 1, 2]}],
    [{'ut': [0.3], 'eval': [7]}],
    [{'ut': [1, 2, 3, 4], 'eval': [10, 20, 20, 40]}, {'ut': [1, 1, 2], 'eval': [5, 5, 5]}],
]
all_task_sets = list(fixed_tasks)
for _ in range(80):
    all_task_sets.append([rand_task() for _ in range(rng.randint(1, 6))])

n_kendall_skipped = 0
for ts in all_task_sets:
    add('bonAccuracy', [ts], r14(bon_accuracy(ts)))
    add('meanRegret', [ts], r14(mean_regret(ts)))
    kt = kendall_tau(ts)
    if kt is None:
        n_kendall_skipped += 1
    else:
        add('kendallTau', [ts], r14(kt))
    add('macroPearson', [ts], r14(macro_pearson(ts)))
    add('macroSpearman', [ts], r14(macro_spearman(ts)))

for ts in all_task_sets[:55]:
    evs = sorted({e for t in ts for e in t['eval']})
    thetas = [evs[0], evs[-1], evs[-1] + 1, evs[0] - 1, evs[len(evs) // 2]]
    if len(evs) > 1:
        thetas.append(rnd((evs[0] + evs[1]) / 2, 4))
    for th in rng.sample(thetas, 3):
        res = threshold_score(ts, th)
        add('thresholdScore', [ts, th], {'mean': r14(res['mean']), 'count': res['count']})

# --- fleissKappa -----------------------------------------------------------
# Wikipedia's worked example (10 items, 14 raters, 5 categories): kappa = 0.210
wiki = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
fk = fleiss_kappa(wiki)
assert abs(fk - 0.20993070442195522) < 1e-12, fk
add('fleissKappa', [wiki], r14(fk))
add('fleissKappa', [[[3, 0], [0, 3], [3, 0]]], r14(fleiss_kappa([[3, 0], [0, 3], [3, 0]])))  # perfect agreement: 1
n_fleiss_skipped = 0
for _ in range(80):
    N = rng.randint(1, 10)
    raters = rng.randint(2, 8)
    k = rng.randint(2, 5)
    rows = []
    for _ in range(N):
        row = [0] * k
        bias = rng.randrange(k)
        for _ in range(raters):
            row[bias if rng.random() < 0.5 else rng.randrange(k)] += 1
        rows.append(row)
    v = fleiss_kappa(rows)
    if v is None:
        n_fleiss_skipped += 1
        continue
    add('fleissKappa', [rows], r14(v))

# --- resolveRate -----------------------------------------------------------
add('resolveRate', [[True]], 1)
add('resolveRate', [[False]], 0)
for _ in range(40):
    n = rng.randint(1, 20)
    p = rng.random()
    out = [rng.random() < p for _ in range(n)]
    add('resolveRate', [out], r14(resolve_rate(out)))

# --- compactionBudget ------------------------------------------------------
n_compaction_skipped = 0
add('compactionBudget', [{'window': 200000, 'promptTokens': 3000}], compaction_budget({'window': 200000, 'promptTokens': 3000}))
add('compactionBudget', [{'window': 100, 'promptTokens': 100}], 1)
add('compactionBudget', [{'window': 100, 'promptTokens': 80}], 1)
add('compactionBudget', [{'window': 100, 'promptTokens': 78}], 2)
for _ in range(100):
    w = rng.choice([100, 1000, 4096, 8192, 32768, 65536, 131072, 200000, rng.randint(10, 300000)])
    pt = rng.choice([0, rng.randint(0, w // 2), rng.randint(0, w), w - rng.randint(0, max(1, w // 5))])
    pt = max(0, min(pt, w))
    o = {'window': w, 'promptTokens': pt}
    if rng.random() < 0.6:
        o['alpha'] = rng.choice([0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 0.75, rnd(rng.random(), 3)])
    a = o.get('alpha', 0.2)
    # floor(alpha*window) in float64 must equal the floor of the decimal product
    if math.floor(a * w) != math.floor(Fraction(str(a)) * w):
        n_compaction_skipped += 1
        continue
    add('compactionBudget', [o], compaction_budget(o))

# ---------------------------------------------------------------------------
data = {'_meta': {'generator': 'bench/reference/spec_reference.py', 'seed': SEED,
                  'note': 'Independent float64/rational reference for SPEC.md; "Infinity"/"-Infinity" strings '
                          'encode +/-Infinity; null is SPEC null. Expected floats rounded to 14 significant digits.'}}
for k, v in cases.items():
    data[k] = enc(v)
os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, 'w') as fh:
    json.dump(data, fh, separators=(',', ':'))
    fh.write('\n')
print('wrote', OUT, os.path.getsize(OUT), 'bytes')
for k, v in cases.items():
    print('  %-22s %5d cases' % (k, len(v)))
print('skipped: kendallTau without comparable pairs = %d, fleissKappa with Pe = 1 = %d, '
      'compactionBudget with float floor != exact floor = %d' % (n_kendall_skipped, n_fleiss_skipped,
                                                                 n_compaction_skipped))
