"""``sm.SM`` on flat arrays, in the subset of Python that numba compiles (``compiled`` packs
the inputs, calls ``run_sm`` and reads the results back).

Each function mirrors the ``sm.SM`` / ``MemorySystem`` method of the same name, step for
step and in the same order, so counters, cycles and timeline rows are the reference's.
Where the reference keeps objects, dicts and sets, this keeps arrays: warps as rows of
``W`` (columns ``W_*``), scalars in ``s`` (``S_*``) and ``f`` (``F_*``), value readiness per
warp slot (reset when a warp takes the slot; an absent entry reads as cycle 0, as the
reference's ``dict.get`` None does), sectors renumbered densely per SM (the L1's LRU order
as a linked list, L2's seen set as flags). Arguments are passed flat: a tuple of arrays
costs numba a reference count per array per call, several times slower here.
"""

from __future__ import annotations

import math

import numpy as np

from warpscope.emulator.timing.sm import (
    BARRIER,
    BRANCH,
    DRAIN,
    LONG_SB,
    NEVER,
    NO_INSTRUCTION,
    NOT_RESIDENT,
    NOT_SELECTED,
    SELECTED,
    SHORT_SB,
    WAIT,
)

# ops, as ``Op``'s values (plain ints: numba reads module-level ints as constants)
ALU, FMA, FP64, XU, LDG, STG, ATOMG, LDS, STS, ATOMS, LDL, STL, SHFL, BAR, BRA, DEF, FDIV, CVT = range(18)
N_OPS = 18
# what an instruction waits on before it issues (as sm._KIND): a pipe 0-4, a queue, nothing
MIO_KIND, LG_KIND, OTHER_KIND = 5, 6, 7
PIPE = np.full(N_OPS, -1, np.int64)
PIPE[[ALU, FMA, FP64, XU, FDIV, CVT]] = [0, 1, 2, 3, 3, 4]
KIND = np.full(N_OPS, OTHER_KIND, np.int64)
KIND[[ALU, FMA, FP64, XU, FDIV, CVT]] = [0, 1, 2, 3, 3, 4]
KIND[[LDS, STS, ATOMS, SHFL]] = MIO_KIND
KIND[[LDG, STG, ATOMG, LDL, STL]] = LG_KIND

# integer parameters (P), float parameters (Q), integer state (S), float state (F)
(
    P_XU_REF,
    P_MUFU_LAT,
    P_FMA_LAT,
    P_SHARED_LAT,
    P_SHUFFLE_LAT,
    P_L1_LAT,
    P_L2_LAT,
    P_DRAM_LAT,
    P_STORE_ACK,
    P_BRANCH,
    P_MIO_Q,
    P_LG_Q,
    P_WARP_START,
    P_COLD_START,
    P_EXIT,
    P_MAX_BLOCKS,
    P_MAX_WARPS,
    P_POLICY,
    P_DISPATCH_STEP,
    P_FIRST_DISPATCH,
    P_TL_LIMIT,
    P_L1_CAP,
    P_INTERVAL,  # 5 entries, one per pipe
) = range(23)
N_P = P_INTERVAL + 5
Q_SHARED_STEP, Q_SHUFFLE_STEP, Q_L1_STEP, Q_L2_STEP, Q_DRAM_STEP = range(5)
(
    S_ISSUED,
    S_RWC,
    S_SAC,
    S_EWC,
    S_BLOCKS,
    S_L1_LOOKUPS,
    S_L1_HITS,
    S_L2_LOOKUPS,
    S_L2_HITS,
    S_DRAM,
    S_TL_N,
    S_TL_COMPLETE,
    S_AGES,
    S_LAST_RETIRE,
    S_COLD,
    S_NEXT_DISPATCH,
    S_PENDING,
    S_RESIDENT,
    S_FREE,
    S_FREEING,
    S_RETIRING,
    S_L1_N,
    S_ERROR,
) = range(23)
N_S = 23
F_SHARED_FREE, F_L1_FREE, F_L2_FREE, F_DRAM_FREE = range(4)
# per-warp integer state (W[w, ...])
(
    W_PC,
    W_LEFT,
    W_WHEN,
    W_WHY,
    W_STATE,
    W_SINCE,
    W_STORES_DONE,
    W_START,
    W_SLOT,
    W_SMSP,
    W_AGE,
    W_BLOCK,
    W_POS,
    W_LEN,
    W_WARP,
    W_GRID_BLOCK,
) = range(16)
N_W = 16
QUEUE_CAP = 64  # ring buffer of one sub-partition's MIO or LG queue (depth <= 5 in use)


def set_state(
    W: np.ndarray,
    w: int,
    state: int,
    at: int,
    s: np.ndarray,
    p: np.ndarray,
    state_cycles: np.ndarray,
    tl: np.ndarray,
) -> None:
    old = W[w, W_STATE]
    since = W[w, W_SINCE]
    if state == old or at < since:
        return
    if at > since:
        if old < NOT_RESIDENT:
            state_cycles[old] += at - since
        n = s[S_TL_N]
        if n < p[P_TL_LIMIT]:
            slot = W[w, W_SLOT]
            tl[n, 0] = slot
            tl[n, 1] = W[w, W_GRID_BLOCK]
            tl[n, 2] = W[w, W_WARP]
            tl[n, 3] = W[w, W_SMSP]
            tl[n, 4] = since
            tl[n, 5] = at
            tl[n, 6] = old
            s[S_TL_N] = n + 1
        else:
            s[S_TL_COMPLETE] = 1
    W[w, W_STATE] = state
    W[w, W_SINCE] = at


def issues(op: int, n: int, p: np.ndarray) -> int:
    if op in (XU, FDIV):
        return 1 + p[P_XU_REF]
    return n


def queue_free(qbuf: np.ndarray, qhead: np.ndarray, qn: np.ndarray, i: int, now: int, depth: int) -> int:
    """When the queue ``i`` (``qbuf[i]``, a ring) has room at ``now`` (> now: full until then)."""
    while qn[i] > 0 and qbuf[i, qhead[i]] <= now:
        qhead[i] = (qhead[i] + 1) % QUEUE_CAP
        qn[i] -= 1
    if qn[i] < depth:
        return now
    return math.ceil(qbuf[i, qhead[i]])


def queue_push(qbuf: np.ndarray, qhead: np.ndarray, qn: np.ndarray, i: int, value: float) -> None:
    qbuf[i, (qhead[i] + qn[i]) % QUEUE_CAP] = value
    qn[i] += 1


def schedule(
    W: np.ndarray,
    w: int,
    now: int,
    earliest: int,
    reason_: int,
    ready_c: np.ndarray,
    ready_k: np.ndarray,
    src_off: np.ndarray,
    src_list: np.ndarray,
    wake: np.ndarray,
    s: np.ndarray,
    p: np.ndarray,
    sc: np.ndarray,
    tl: np.ndarray,
) -> None:
    when = earliest
    why = reason_
    k = W[w, W_POS] + W[w, W_PC]
    slot = W[w, W_SLOT]
    for j in range(src_off[k, 0], src_off[k, 1]):
        v = src_list[j]
        if ready_c[slot, v] > when:
            when = ready_c[slot, v]
            why = ready_k[slot, v]
    W[w, W_WHEN] = when
    W[w, W_WHY] = why
    p_ = W[w, W_SMSP]
    if when < wake[p_]:
        wake[p_] = when
    set_state(W, w, why if when > now else NOT_SELECTED, now, s, p, sc, tl)


def advance(
    W: np.ndarray,
    w: int,
    ops: np.ndarray,
    ns: np.ndarray,
    dsts: np.ndarray,
    src_off: np.ndarray,
    src_list: np.ndarray,
    ready_c: np.ndarray,
    ready_k: np.ndarray,
    p: np.ndarray,
) -> None:
    """Move past the issued instruction and any variable definitions after it."""
    pos = W[w, W_POS]
    n_ops = W[w, W_LEN]
    slot = W[w, W_SLOT]
    pc = W[w, W_PC] + 1
    while pc < n_ops and ops[pos + pc] == DEF:
        k = pos + pc
        best_c = 0
        best_k = WAIT
        for j in range(src_off[k, 0], src_off[k, 1]):
            v = src_list[j]
            if ready_c[slot, v] > best_c:
                best_c = ready_c[slot, v]
                best_k = ready_k[slot, v]
        ready_c[slot, dsts[k]] = best_c
        ready_k[slot, dsts[k]] = best_k
        pc += 1
    W[w, W_PC] = pc
    if pc < n_ops:
        W[w, W_LEFT] = issues(ops[pos + pc], ns[pos + pc], p)


def exit_core(
    W: np.ndarray,
    w: int,
    now: int,
    p: np.ndarray,
    s: np.ndarray,
    sc: np.ndarray,
    tl: np.ndarray,
    smsp_list: np.ndarray,
    smsp_n: np.ndarray,
    smsp_res: np.ndarray,
    smsp_since: np.ndarray,
    freeing: np.ndarray,
    b_live: np.ndarray,
    b_release: np.ndarray,
    retiring: np.ndarray,
) -> int:
    """``sm.SM._exit`` up to its barrier release; the block's live warps left."""
    done = max(now + p[P_EXIT], W[w, W_STORES_DONE])
    set_state(W, w, DRAIN, now, s, p, sc, tl)
    W[w, W_WHEN] = NEVER
    W[w, W_WHY] = DRAIN
    set_state(W, w, NOT_RESIDENT, done, s, p, sc, tl)
    q = W[w, W_SMSP]
    n = smsp_n[q]
    i = 0
    while smsp_list[q, i] != w:
        i += 1
    for j in range(i, n - 1):
        smsp_list[q, j] = smsp_list[q, j + 1]
    smsp_n[q] = n - 1
    smsp_res[q] -= 1
    if smsp_res[q] == 0:
        s[S_SAC] += done - smsp_since[q]
    nf = s[S_FREEING]
    freeing[nf, 0] = done
    freeing[nf, 1] = W[w, W_SLOT]
    s[S_FREEING] = nf + 1
    s[S_RWC] += done - W[w, W_START]
    if done > s[S_LAST_RETIRE]:
        s[S_LAST_RETIRE] = done
    b = W[w, W_BLOCK]
    if done > b_release[b]:
        b_release[b] = done
    b_live[b] -= 1
    if b_live[b] == 0:
        s[S_RESIDENT] -= 1
        retiring[s[S_RETIRING]] = max(b_release[b], done)
        s[S_RETIRING] += 1
    return b_live[b]


def release(
    b: int,
    now: int,
    W: np.ndarray,
    ops: np.ndarray,
    ns: np.ndarray,
    dsts: np.ndarray,
    src_off: np.ndarray,
    src_list: np.ndarray,
    ready_c: np.ndarray,
    ready_k: np.ndarray,
    wake: np.ndarray,
    p: np.ndarray,
    s: np.ndarray,
    sc: np.ndarray,
    tl: np.ndarray,
    smsp_list: np.ndarray,
    smsp_n: np.ndarray,
    smsp_res: np.ndarray,
    smsp_since: np.ndarray,
    freeing: np.ndarray,
    b_live: np.ndarray,
    b_release: np.ndarray,
    retiring: np.ndarray,
    bar: np.ndarray,
    bar_n: np.ndarray,
) -> None:
    """A barrier whose block's live warps have all arrived lets them go (``sm.SM._release``;
    an exit inside finds the barrier empty, so its own release does nothing)."""
    n = bar_n[b]
    if n > 0 and n >= b_live[b]:
        waiting = bar[b, :n].copy()
        bar_n[b] = 0
        for x in waiting:
            if W[x, W_PC] >= W[x, W_LEN]:
                exit_core(
                    W,
                    x,
                    now + 1,
                    p,
                    s,
                    sc,
                    tl,
                    smsp_list,
                    smsp_n,
                    smsp_res,
                    smsp_since,
                    freeing,
                    b_live,
                    b_release,
                    retiring,
                )
            else:
                schedule(
                    W,
                    x,
                    now + 1,
                    now + 1,
                    NOT_SELECTED,
                    ready_c,
                    ready_k,
                    src_off,
                    src_list,
                    wake,
                    s,
                    p,
                    sc,
                    tl,
                )


def has_room(p: np.ndarray, s: np.ndarray, block_nw: np.ndarray) -> bool:
    nxt = block_nw[s[S_PENDING]] if s[S_PENDING] < block_nw.size else 0
    return s[S_RESIDENT] + s[S_RETIRING] < p[P_MAX_BLOCKS] and s[S_FREE] >= nxt


def release_resources(
    now: int, s: np.ndarray, freeing: np.ndarray, retiring: np.ndarray, slot_free: np.ndarray
) -> None:
    k = 0
    for i in range(s[S_RETIRING]):
        if retiring[i] > now:
            retiring[k] = retiring[i]
            k += 1
    s[S_RETIRING] = k
    k = 0
    for i in range(s[S_FREEING]):
        if freeing[i, 0] <= now:
            slot_free[freeing[i, 1]] = True
            s[S_FREE] += 1
        else:
            freeing[k, 0] = freeing[i, 0]
            freeing[k, 1] = freeing[i, 1]
            k += 1
    s[S_FREEING] = k


def capacity_at(
    now: int, p: np.ndarray, s: np.ndarray, block_nw: np.ndarray, freeing: np.ndarray, retiring: np.ndarray
) -> int:
    """The first cycle at which the next block fits (resources of draining warps return)."""
    if has_room(p, s, block_nw):
        return now
    nxt = block_nw[s[S_PENDING]] if s[S_PENDING] < block_nw.size else 0
    best = NEVER
    nf, nr = s[S_FREEING], s[S_RETIRING]
    for i in range(nf + nr):
        c = freeing[i, 0] if i < nf else retiring[i - nf]
        if c >= best:
            continue
        blocks = s[S_RESIDENT]
        for j in range(nr):
            if retiring[j] > c:
                blocks += 1
        slots = s[S_FREE]
        for j in range(nf):
            if freeing[j, 0] <= c:
                slots += 1
        if blocks < p[P_MAX_BLOCKS] and slots >= nxt:
            best = c
    return best


def l2(
    arrive: float,
    lo: int,
    hi: int,
    sectors: np.ndarray,
    use_list: bool,
    misses: np.ndarray,
    n_miss: int,
    ft: np.ndarray,
    l2_seen: np.ndarray,
    p: np.ndarray,
    q: np.ndarray,
    s: np.ndarray,
    f: np.ndarray,
) -> int:
    """``MemorySystem._l2`` over ``sectors[lo:hi]`` (or ``misses[:n_miss]``): when the last is back."""
    n = n_miss if use_list else hi - lo
    done = 0.0
    s[S_L2_LOOKUPS] += n
    dram_latency = p[P_DRAM_LAT]
    l2_latency = p[P_L2_LAT]
    for i in range(n):
        sec = misses[i] if use_list else sectors[lo + i]
        start = max(arrive, f[F_L2_FREE])
        f[F_L2_FREE] = start + q[Q_L2_STEP]
        if not l2_seen[sec] and ft[sec]:
            d = max(start, f[F_DRAM_FREE])
            f[F_DRAM_FREE] = d + q[Q_DRAM_STEP]
            s[S_DRAM] += 1
            done = max(done, d + dram_latency)
        else:
            s[S_L2_HITS] += 1
            done = max(done, start + l2_latency)
    for i in range(n):
        l2_seen[misses[i] if use_list else sectors[lo + i]] = True
    return int(done)


def l1_unlink(sec: int, l1_prev: np.ndarray, l1_next: np.ndarray) -> None:
    a = l1_prev[sec]
    b = l1_next[sec]
    l1_next[a] = b
    l1_prev[b] = a


def l1_append(sec: int, l1_prev: np.ndarray, l1_next: np.ndarray, head: int) -> None:
    last = l1_prev[head]
    l1_next[last] = sec
    l1_prev[sec] = last
    l1_next[sec] = head
    l1_prev[head] = sec


def run_sm(
    p: np.ndarray,
    q: np.ndarray,
    latency: np.ndarray,
    reason: np.ndarray,
    warps: np.ndarray,
    block_w0: np.ndarray,
    block_nw: np.ndarray,
    block_index: np.ndarray,
    ops: np.ndarray,
    ns: np.ndarray,
    dsts: np.ndarray,
    src_off: np.ndarray,
    src_list: np.ndarray,
    units: np.ndarray,
    sec_off: np.ndarray,
    sectors: np.ndarray,
    ft_load: np.ndarray,
    ft_store: np.ndarray,
    values: int,
    s: np.ndarray,
    f: np.ndarray,
    sc: np.ndarray,
    tl: np.ndarray,
) -> int:
    """``sm.SM.run``: returns the cycles; counters in ``s``, state cycles in ``sc``, timeline rows in ``tl``."""
    n_warps = warps.shape[0]
    n_blocks = block_nw.size
    max_warps = p[P_MAX_WARPS]
    W = np.zeros((n_warps, N_W), np.int64)
    for w in range(n_warps):
        W[w, W_POS] = warps[w, 0]
        W[w, W_LEN] = warps[w, 1]
        W[w, W_WARP] = warps[w, 2]
    b_live = np.zeros(n_blocks, np.int64)
    b_release = np.zeros(n_blocks, np.int64)
    wpb = 1
    for b in range(n_blocks):
        wpb = max(wpb, block_nw[b])
    bar = np.zeros((n_blocks, wpb), np.int64)
    bar_n = np.zeros(n_blocks, np.int64)
    ready_c = np.zeros((max_warps, values), np.int64)
    ready_k = np.zeros((max_warps, values), np.int64)
    slot_free = np.ones(max_warps, np.bool_)
    freeing = np.zeros((max_warps + 1, 2), np.int64)
    retiring = np.zeros(p[P_MAX_BLOCKS] + n_blocks + 1, np.int64)
    smsp_list = np.zeros((4, max_warps), np.int64)
    smsp_n = np.zeros(4, np.int64)
    smsp_res = np.zeros(4, np.int64)
    smsp_since = np.zeros(4, np.int64)
    pipe_free = np.zeros((4, 5), np.int64)
    qbuf = np.zeros((8, QUEUE_CAP))  # 0-3: MIO queues, 4-7: LG queues
    qhead = np.zeros(8, np.int64)
    qn = np.zeros(8, np.int64)
    last_issued = np.full(4, -1, np.int64)
    wake = np.full(4, NEVER, np.int64)
    eligible = np.zeros(max_warps, np.int64)
    n_sec = ft_load.size
    l1_prev = np.zeros(n_sec + 1, np.int64)
    l1_next = np.zeros(n_sec + 1, np.int64)
    head = n_sec  # sentinel: next = least recently used, prev = most recently used
    l1_prev[head] = head
    l1_next[head] = head
    in_l1 = np.zeros(n_sec, np.bool_)
    l2_seen = np.zeros(n_sec, np.bool_)
    misses = np.zeros(64, np.int64)
    s[S_FREE] = max_warps
    s[S_COLD] = 1
    s[S_NEXT_DISPATCH] = p[P_FIRST_DISPATCH]
    refinement = 1 + p[P_XU_REF]
    xu_ref = p[P_XU_REF]
    policy = p[P_POLICY]
    now = 0
    first = -1
    while True:
        if s[S_PENDING] < n_blocks and now >= s[S_NEXT_DISPATCH]:
            # _dispatch
            release_resources(now, s, freeing, retiring, slot_free)
            while s[S_PENDING] < n_blocks and now >= s[S_NEXT_DISPATCH] and has_room(p, s, block_nw):
                b = s[S_PENDING]
                s[S_PENDING] = b + 1
                wstart = now + (p[P_COLD_START] if s[S_COLD] else p[P_WARP_START])
                s[S_COLD] = 0
                w0 = block_w0[b]
                for w in range(w0, w0 + block_nw[b]):
                    slot = 0
                    while not slot_free[slot]:
                        slot += 1
                    slot_free[slot] = False
                    s[S_FREE] -= 1
                    ready_c[slot, :] = 0
                    ready_k[slot, :] = 0
                    W[w, W_SLOT] = slot
                    W[w, W_SMSP] = slot % 4
                    W[w, W_AGE] = s[S_AGES]
                    W[w, W_BLOCK] = b
                    W[w, W_GRID_BLOCK] = block_index[b]
                    s[S_AGES] += 1
                    W[w, W_STATE] = NO_INSTRUCTION
                    W[w, W_SINCE] = now
                    W[w, W_START] = now
                    W[w, W_WHEN] = wstart
                    W[w, W_WHY] = NO_INSTRUCTION
                    pp = slot % 4
                    if wstart < wake[pp]:
                        wake[pp] = wstart
                    pos = W[w, W_POS]
                    n_ops = W[w, W_LEN]
                    if n_ops > 0 and ops[pos] == DEF:
                        W[w, W_PC] = -1
                        advance(W, w, ops, ns, dsts, src_off, src_list, ready_c, ready_k, p)
                    pc = W[w, W_PC]
                    W[w, W_LEFT] = issues(ops[pos + pc], ns[pos + pc], p) if pc < n_ops else 0
                    smsp_list[pp, smsp_n[pp]] = w
                    smsp_n[pp] += 1
                    if smsp_res[pp] == 0:
                        smsp_since[pp] = now
                    smsp_res[pp] += 1
                b_live[b] = block_nw[b]
                s[S_RESIDENT] += 1
                s[S_BLOCKS] += 1
                s[S_NEXT_DISPATCH] = now + p[P_DISPATCH_STEP]
                for w in range(w0, w0 + block_nw[b]):
                    if W[w, W_PC] >= W[w, W_LEN] and (
                        exit_core(
                            W,
                            w,
                            wstart,
                            p,
                            s,
                            sc,
                            tl,
                            smsp_list,
                            smsp_n,
                            smsp_res,
                            smsp_since,
                            freeing,
                            b_live,
                            b_release,
                            retiring,
                        )
                        > 0
                    ):
                        release(
                            b,
                            wstart,
                            W,
                            ops,
                            ns,
                            dsts,
                            src_off,
                            src_list,
                            ready_c,
                            ready_k,
                            wake,
                            p,
                            s,
                            sc,
                            tl,
                            smsp_list,
                            smsp_n,
                            smsp_res,
                            smsp_since,
                            freeing,
                            b_live,
                            b_release,
                            retiring,
                            bar,
                            bar_n,
                        )
            if first < 0 and s[S_RESIDENT] > 0:
                first = now
        elif s[S_RESIDENT] == 0 and s[S_PENDING] >= n_blocks:
            now = max(now, s[S_LAST_RETIRE])
            break
        # _cycle
        wake_all = NEVER
        any_eligible = False
        for pp in range(4):
            soonest = wake[pp]
            if soonest > now:
                if soonest < wake_all:
                    wake_all = soonest
                continue
            soonest = NEVER
            n_el = 0
            for i in range(smsp_n[pp]):
                w = smsp_list[pp, i]
                when = W[w, W_WHEN]
                if when > now:
                    if when < soonest:
                        soonest = when
                    continue
                k = W[w, W_POS] + W[w, W_PC]
                op = ops[k]
                kind = KIND[op]
                if kind < MIO_KIND:
                    if kind == 3 and W[w, W_LEFT] < refinement:
                        kind = 1  # a refinement instruction runs on the FMA pipe
                    hazard = pipe_free[pp, kind]
                    if hazard <= now:
                        eligible[n_el] = w
                        n_el += 1
                        continue
                    why = 6  # MATH_THROTTLE
                elif kind == OTHER_KIND:
                    eligible[n_el] = w
                    n_el += 1
                    continue
                elif kind == MIO_KIND:
                    hazard = queue_free(qbuf, qhead, qn, pp, now, p[P_MIO_Q])
                    if hazard <= now:
                        eligible[n_el] = w
                        n_el += 1
                        continue
                    why = 7  # MIO_THROTTLE
                else:
                    hazard = queue_free(qbuf, qhead, qn, 4 + pp, now, p[P_LG_Q])
                    if hazard <= now:
                        eligible[n_el] = w
                        n_el += 1
                        continue
                    why = 8  # LG_THROTTLE
                if W[w, W_STATE] != why:
                    set_state(W, w, why, now, s, p, sc, tl)
                W[w, W_WHEN] = hazard
                W[w, W_WHY] = why
                if hazard < soonest:
                    soonest = hazard
            if n_el == 0:
                wake[pp] = soonest
                if soonest < wake_all:
                    wake_all = soonest
                continue
            any_eligible = True
            s[S_EWC] += n_el
            if n_el > 1:
                # _pick
                last = last_issued[pp]
                pick = -1
                if policy == 2:  # lrr
                    after = W[last, W_SLOT] if last >= 0 else -1
                    best_slot = NEVER
                    for i in range(n_el):
                        x = eligible[i]
                        if W[x, W_SLOT] > after and W[x, W_SLOT] < best_slot:
                            best_slot = W[x, W_SLOT]
                            pick = x
                    if pick < 0:
                        for i in range(n_el):
                            x = eligible[i]
                            if W[x, W_SLOT] < best_slot:
                                best_slot = W[x, W_SLOT]
                                pick = x
                else:
                    if last >= 0:
                        for i in range(n_el):
                            if eligible[i] == last:
                                pick = last
                    if pick < 0:
                        best_age = -1
                        for i in range(n_el):
                            x = eligible[i]
                            a = W[x, W_AGE]
                            if pick < 0 or (a < best_age if policy == 1 else a > best_age):
                                best_age = a
                                pick = x
                soonest = now  # the others stay eligible
            else:
                pick = eligible[0]
            wake[pp] = soonest
            for i in range(n_el):
                x = eligible[i]
                if x != pick and W[x, W_STATE] != NOT_SELECTED:
                    set_state(W, x, NOT_SELECTED, now, s, p, sc, tl)
            # _issue
            w = pick
            set_state(W, w, SELECTED, now, s, p, sc, tl)
            last_issued[pp] = w
            s[S_ISSUED] += 1
            pos = W[w, W_POS]
            n_ops = W[w, W_LEN]
            pc = W[w, W_PC]
            k = pos + pc
            op = ops[k]
            slot = W[w, W_SLOT]
            if W[w, W_LEFT] > 1:  # _issue_within_site
                sequence = op in (XU, FDIV)
                first_of_site = W[w, W_LEFT] == issues(op, ns[k], p)
                W[w, W_LEFT] -= 1
                if sequence and first_of_site:
                    pipe_free[pp, 3] = now + p[P_INTERVAL + 3]
                    W[w, W_WHEN] = now + p[P_MUFU_LAT]
                    W[w, W_WHY] = SHORT_SB
                elif sequence:
                    pipe_free[pp, 1] = now + p[P_INTERVAL + 1]
                    W[w, W_WHEN] = now + p[P_FMA_LAT]
                    W[w, W_WHY] = WAIT
                else:
                    W[w, W_WHEN] = now + 1
                    W[w, W_WHY] = NOT_SELECTED
                set_state(W, w, W[w, W_WHY], now + 1, s, p, sc, tl)
            else:
                pipe = PIPE[op]
                ready_at = now + 1
                why_at = NOT_SELECTED
                barrier = False
                if pipe >= 0:  # _issue_arithmetic
                    if (op in (XU, FDIV)) and xu_ref:
                        pipe = 1  # the last refinement instruction runs on the FMA pipe
                    pipe_free[pp, pipe] = now + p[P_INTERVAL + pipe]
                    ready_c[slot, dsts[k]] = now + latency[op]
                    ready_k[slot, dsts[k]] = reason[op]
                elif op in (LDS, STS, ATOMS, SHFL):  # _issue_mio
                    u = units[k] if units[k] >= 0 else 1
                    start = max(float(now + 1), f[F_SHARED_FREE])
                    step = q[Q_SHUFFLE_STEP] if op == SHFL else q[Q_SHARED_STEP]
                    f[F_SHARED_FREE] = start + u * step
                    queue_push(qbuf, qhead, qn, pp, start)
                    if op != STS:
                        if op == SHFL:
                            lat = p[P_SHUFFLE_LAT]
                        elif op == ATOMS:
                            lat = p[P_SHARED_LAT] * 2
                        else:
                            lat = p[P_SHARED_LAT]
                        ready_c[slot, dsts[k]] = int(start + (u - 1) * step) + lat
                        ready_k[slot, dsts[k]] = SHORT_SB
                elif op in (LDG, STG, ATOMG, LDL, STL):  # _issue_lg
                    lines = units[k] if units[k] >= 0 else 1
                    start = max(float(now + 1), f[F_L1_FREE])  # tag stage
                    f[F_L1_FREE] = start + max(1, lines) * q[Q_L1_STEP]
                    queue_push(qbuf, qhead, qn, 4 + pp, start)
                    lo = sec_off[k, 0]
                    hi = sec_off[k, 1]
                    if op == STG:
                        written = 0
                        if lo >= 0:
                            for i in range(lo, hi):
                                sec = sectors[i]
                                if in_l1[sec]:  # write-through: the L1 copy is invalidated
                                    l1_unlink(sec, l1_prev, l1_next)
                                    in_l1[sec] = False
                                    s[S_L1_N] -= 1
                            written = l2(
                                start, lo, hi, sectors, False, misses, 0, ft_store, l2_seen, p, q, s, f
                            )
                        W[w, W_STORES_DONE] = max(W[w, W_STORES_DONE], int(start) + p[P_STORE_ACK], written)
                    elif op == STL:
                        W[w, W_STORES_DONE] = max(W[w, W_STORES_DONE], int(start) + p[P_L1_LAT])
                    else:  # MemorySystem.load
                        done_f = start + (lines - 1) * q[Q_L1_STEP] + p[P_L1_LAT]
                        done = int(done_f)
                        if lo >= 0:
                            if op != ATOMG:
                                n_miss = 0
                                s[S_L1_LOOKUPS] += hi - lo
                                if misses.size < hi - lo:
                                    misses = np.zeros(hi - lo, np.int64)
                                for i in range(lo, hi):
                                    sec = sectors[i]
                                    if in_l1[sec]:
                                        l1_unlink(sec, l1_prev, l1_next)
                                        l1_append(sec, l1_prev, l1_next, head)
                                        s[S_L1_HITS] += 1
                                    else:
                                        misses[n_miss] = sec
                                        n_miss += 1
                                        l1_append(sec, l1_prev, l1_next, head)
                                        in_l1[sec] = True
                                        s[S_L1_N] += 1
                                while s[S_L1_N] > p[P_L1_CAP]:
                                    old = l1_next[head]
                                    l1_unlink(old, l1_prev, l1_next)
                                    in_l1[old] = False
                                    s[S_L1_N] -= 1
                                if n_miss > 0:
                                    done = max(
                                        done,
                                        l2(
                                            start + p[P_L1_LAT] // 2,
                                            0,
                                            0,
                                            sectors,
                                            True,
                                            misses,
                                            n_miss,
                                            ft_load,
                                            l2_seen,
                                            p,
                                            q,
                                            s,
                                            f,
                                        ),
                                    )
                            else:
                                done = max(
                                    done,
                                    l2(
                                        start + p[P_L1_LAT] // 2,
                                        lo,
                                        hi,
                                        sectors,
                                        False,
                                        misses,
                                        0,
                                        ft_load,
                                        l2_seen,
                                        p,
                                        q,
                                        s,
                                        f,
                                    ),
                                )
                        ready_c[slot, dsts[k]] = done
                        ready_k[slot, dsts[k]] = LONG_SB
                elif op == BAR:
                    barrier = True
                elif op == BRA:
                    ready_at = now + p[P_BRANCH]
                    why_at = BRANCH
                advance(W, w, ops, ns, dsts, src_off, src_list, ready_c, ready_k, p)
                b = W[w, W_BLOCK]
                if barrier:  # _barrier
                    bar[b, bar_n[b]] = w
                    bar_n[b] += 1
                    W[w, W_WHEN] = NEVER
                    W[w, W_WHY] = BARRIER
                    set_state(W, w, BARRIER, now + 1, s, p, sc, tl)
                    release(
                        b,
                        now,
                        W,
                        ops,
                        ns,
                        dsts,
                        src_off,
                        src_list,
                        ready_c,
                        ready_k,
                        wake,
                        p,
                        s,
                        sc,
                        tl,
                        smsp_list,
                        smsp_n,
                        smsp_res,
                        smsp_since,
                        freeing,
                        b_live,
                        b_release,
                        retiring,
                        bar,
                        bar_n,
                    )
                elif W[w, W_PC] >= n_ops:
                    if (
                        exit_core(
                            W,
                            w,
                            now + 1,
                            p,
                            s,
                            sc,
                            tl,
                            smsp_list,
                            smsp_n,
                            smsp_res,
                            smsp_since,
                            freeing,
                            b_live,
                            b_release,
                            retiring,
                        )
                        > 0
                    ):
                        release(
                            b,
                            now + 1,
                            W,
                            ops,
                            ns,
                            dsts,
                            src_off,
                            src_list,
                            ready_c,
                            ready_k,
                            wake,
                            p,
                            s,
                            sc,
                            tl,
                            smsp_list,
                            smsp_n,
                            smsp_res,
                            smsp_since,
                            freeing,
                            b_live,
                            b_release,
                            retiring,
                            bar,
                            bar_n,
                        )
                else:
                    schedule(
                        W,
                        w,
                        now + 1,
                        ready_at,
                        why_at,
                        ready_c,
                        ready_k,
                        src_off,
                        src_list,
                        wake,
                        s,
                        p,
                        sc,
                        tl,
                    )
            if W[pick, W_WHEN] < wake[pp]:
                wake[pp] = W[pick, W_WHEN]
        if any_eligible:
            now += 1
            continue
        if s[S_PENDING] < n_blocks:
            release_resources(now, s, freeing, retiring, slot_free)
            wake_all = min(
                wake_all,
                max(s[S_NEXT_DISPATCH], capacity_at(now, p, s, block_nw, freeing, retiring), now + 1),
            )
        if wake_all >= NEVER:
            s[S_ERROR] = 1
            return 0
        now = max(now + 1, wake_all)
    return now - (first if first >= 0 else 0)


#: the functions ``run_sm`` calls by their global names (compiled before it)
HELPERS = (
    "set_state",
    "issues",
    "queue_free",
    "queue_push",
    "schedule",
    "advance",
    "exit_core",
    "release",
    "has_room",
    "release_resources",
    "capacity_at",
    "l2",
    "l1_unlink",
    "l1_append",
)
