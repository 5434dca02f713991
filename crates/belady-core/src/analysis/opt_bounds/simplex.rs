//! A primal network simplex for FOO's flow graphs: a chain of nodes in time order (arc `t → t+1`,
//! cost 0, the cache's free capacity over that stretch) and forward "interval" arcs `a → b`
//! (capacity the object's size, a cost per unit of flow), each starting saturated: every
//! interval missed. Moving an interval's flow onto the chain caches it.
//!
//! No crate on crates.io offers a min-cost flow under a permissive licence that is kept up
//! (`mcmf` binds a 2018 copy of LEMON through a C++ build and returns path lists; `rs-graph` is
//! GPL), so this is written here, the way LEMON's `NetworkSimplex` works (which the paper uses):
//! a spanning tree of basic arcs, block-search pricing over the non-tree arcs, and the
//! leaving-arc rule of strongly feasible trees (Cunningham), which rules out cycling. The tree is
//! kept as parent pointers with child lists and depths; a pivot re-hangs the cut-off subtree and
//! shifts its potentials in one walk over it.
//!
//! The starting tree is the chain itself, each stretch between zero-capacity chain arcs hung from
//! an extra root by its last node: with every interval arc saturated at its upper bound and the
//! chain empty, flow balances at every node, all potentials are 0, and every node can send flow
//! to the root along the chain, so the tree is strongly feasible from the start and no
//! artificial costs are needed.
//!
//! Costs are integers (`i64`): the callers scale them so that a path's cost stays far below
//! 2^62 ([`MAX_PATH_COST`]), so potentials and reduced costs never overflow.

/// No node or arc.
const NONE: u32 = u32::MAX;
/// Arc states: at its lower bound, in the tree, at its upper bound. An arc may enter when
/// `state * reduced_cost < 0`.
const LOWER: i8 = 1;
const TREE: i8 = 0;
const UPPER: i8 = -1;

/// Largest sum of arc costs along any path that callers may build (`2^60`): potentials stay
/// within it and reduced costs within three times it.
pub(crate) const MAX_PATH_COST: i64 = 1 << 60;

/// A FOO flow graph and its solution.
pub(crate) struct ChainFlow {
    /// Real nodes `0..nodes`; node `nodes` is the root.
    nodes: usize,
    /// Interval arcs first (`0..intervals`), then chain arcs, then the root links.
    intervals: usize,
    /// The chain arcs' capacities, laid out behind the intervals by `build`.
    chain: Vec<i64>,
    /// The first root link (set by `build`).
    first_link: usize,
    tail: Vec<u32>,
    head: Vec<u32>,
    cap: Vec<i64>,
    cost: Vec<i64>,
    flow: Vec<i64>,
    state: Vec<i8>,
    /// Arcs the pricing may pick: interval arcs and chain arcs of positive capacity.
    candidates: Vec<u32>,
    parent: Vec<u32>,
    pred: Vec<u32>,
    first_child: Vec<u32>,
    next_sib: Vec<u32>,
    prev_sib: Vec<u32>,
    depth: Vec<u32>,
    pot: Vec<i64>,
    /// Pivots made (for tests and the docs' measurements).
    pub(crate) pivots: u64,
}

impl ChainFlow {
    /// A graph over `chain.len() + 1` nodes whose chain arc `t → t+1` holds `chain[t]` units, with
    /// room reserved for `intervals` interval arcs.
    pub(crate) fn new(chain: &[i64], intervals: usize) -> ChainFlow {
        let nodes = chain.len() + 1;
        let arcs = intervals + chain.len() + nodes;
        ChainFlow {
            nodes,
            intervals: 0,
            chain: chain.to_vec(),
            first_link: 0,
            tail: Vec::with_capacity(arcs),
            head: Vec::with_capacity(arcs),
            cap: Vec::with_capacity(arcs),
            cost: Vec::with_capacity(arcs),
            flow: Vec::with_capacity(arcs),
            state: Vec::with_capacity(arcs),
            candidates: Vec::new(),
            parent: vec![NONE; nodes + 1],
            pred: vec![NONE; nodes + 1],
            first_child: vec![NONE; nodes + 1],
            next_sib: vec![NONE; nodes + 1],
            prev_sib: vec![NONE; nodes + 1],
            depth: vec![0; nodes + 1],
            pot: vec![0; nodes + 1],
            pivots: 0,
        }
    }

    /// Adds an interval arc `a → b` (`a < b`) of capacity `cap` and cost `cost` per unit,
    /// saturated (the interval missed) or, when `cached`, empty (its units on the chain: the
    /// caller vouches that the cached intervals fit the chain); returns its index, for
    /// [`ChainFlow::flow`].
    pub(crate) fn add_interval(
        &mut self,
        a: u32,
        b: u32,
        cap: i64,
        cost: i64,
        cached: bool,
    ) -> usize {
        debug_assert!(a < b && (b as usize) < self.nodes && cap > 0 && cost >= 0);
        self.tail.push(a);
        self.head.push(b);
        self.cost.push(cost);
        if cached {
            self.flow.push(0);
            self.state.push(LOWER);
        } else {
            self.flow.push(cap);
            self.state.push(UPPER);
        }
        self.cap.push(cap);
        self.intervals += 1;
        self.intervals - 1
    }

    /// Lays out the chain arcs and root links behind the intervals and builds the starting tree.
    fn build(&mut self) {
        let chain = std::mem::take(&mut self.chain);
        let root = self.nodes as u32;
        // The cached intervals' units on each chain arc.
        let mut on_chain = vec![0i64; chain.len() + 1];
        for k in 0..self.intervals {
            if self.state[k] == LOWER {
                on_chain[self.tail[k] as usize] += self.cap[k];
                on_chain[self.head[k] as usize] -= self.cap[k];
            }
        }
        let first_chain = self.tail.len();
        let mut carried = 0i64;
        for (t, &c) in chain.iter().enumerate() {
            carried += on_chain[t];
            debug_assert!(
                carried <= c,
                "the cached intervals overfill the chain at {t}"
            );
            self.tail.push(t as u32);
            self.head.push(t as u32 + 1);
            self.cap.push(c);
            self.cost.push(0);
            self.flow.push(carried);
            // A full chain arc cannot carry more toward the root: it stays out of the tree.
            self.state
                .push(if carried == c && c > 0 { UPPER } else { LOWER });
        }
        let first_link = self.tail.len();
        self.first_link = first_link;
        for v in 0..self.nodes {
            self.tail.push(v as u32);
            self.head.push(root);
            self.cap.push(i64::MAX);
            self.cost.push(0);
            self.flow.push(0);
            self.state.push(LOWER);
        }
        self.depth[root as usize] = 0;
        // Walk the nodes from the last: a node hangs from its successor through the chain arc
        // when that arc has room (so that every node can send flow to the root: a strongly
        // feasible tree), else from the root.
        for v in (0..self.nodes).rev() {
            let (p, arc) = if v + 1 < self.nodes && self.flow[first_chain + v] < chain[v] {
                (v as u32 + 1, first_chain + v)
            } else {
                (root, first_link + v)
            };
            self.state[arc] = TREE;
            self.pred[v] = arc as u32;
            self.attach(v as u32, p);
            self.depth[v] = self.depth[p as usize] + 1;
        }
        self.candidates = (0..self.intervals as u32)
            .chain(
                (0..chain.len())
                    .filter(|&t| chain[t] > 0)
                    .map(|t| (first_chain + t) as u32),
            )
            .collect();
    }

    /// Solves the flow to optimality.
    pub(crate) fn solve(&mut self) {
        self.build();
        let m = self.candidates.len();
        if m == 0 {
            return;
        }
        let block = ((m as f64).sqrt() as usize).max(10).min(m);
        let mut next = 0usize;
        loop {
            // Block search: scan a block of candidates from where the last search stopped and
            // take the most violating arc of the first block that has one.
            let mut best = NONE;
            let mut best_violation = 0i64;
            let mut scanned = 0usize;
            while scanned < m {
                let end = scanned + block.min(m - scanned);
                while scanned < end {
                    let e = self.candidates[next];
                    next += 1;
                    if next == m {
                        next = 0;
                    }
                    scanned += 1;
                    let i = e as usize;
                    let s = self.state[i];
                    if s == TREE {
                        continue;
                    }
                    let v = s as i64 * self.reduced_cost(i);
                    if v < best_violation {
                        best_violation = v;
                        best = e;
                    }
                }
                if best != NONE {
                    break;
                }
            }
            if best == NONE {
                return;
            }
            self.pivot(best as usize);
        }
    }

    #[inline]
    fn reduced_cost(&self, e: usize) -> i64 {
        self.cost[e] + self.pot[self.tail[e] as usize] - self.pot[self.head[e] as usize]
    }

    /// The flow on interval arc `k` once solved: the units missed.
    pub(crate) fn flow(&self, k: usize) -> i64 {
        self.flow[k]
    }

    /// Units of flow the chain arc into node `t + 1` carries once solved (tests).
    #[cfg(test)]
    pub(crate) fn chain_flow(&self, t: usize) -> i64 {
        self.flow[self.intervals + t]
    }

    /// The arc `pred[u]` points from `u`'s parent down to `u`.
    #[inline]
    fn points_down(&self, u: u32) -> bool {
        self.tail[self.pred[u as usize] as usize] != u
    }

    fn pivot(&mut self, e: usize) {
        self.pivots += 1;
        let entering_state = self.state[e];
        let (first, second) = if entering_state == LOWER {
            (self.tail[e], self.head[e])
        } else {
            (self.head[e], self.tail[e])
        };
        // The cycle: e carries flow from `first` to `second`; the tree carries it back from
        // `second` up to the join and down to `first`.
        let join = {
            let (mut u, mut v) = (first, second);
            while u != v {
                let (du, dv) = (self.depth[u as usize], self.depth[v as usize]);
                if du >= dv {
                    u = self.parent[u as usize];
                }
                if dv >= du {
                    v = self.parent[v as usize];
                }
            }
            u
        };
        // The leaving arc: the last blocking arc in the cycle's direction from the join (the
        // rule that keeps the tree strongly feasible). On the first side, walked up from
        // `first` against that direction, the first minimum wins; on the second side, walked
        // up with it, the last.
        let mut delta = self.cap[e];
        let mut out = NONE;
        let mut out_first_side = false;
        let mut u = first;
        while u != join {
            let p = self.pred[u as usize] as usize;
            let room = if self.points_down(u) {
                self.cap[p] - self.flow[p]
            } else {
                self.flow[p]
            };
            if room < delta {
                delta = room;
                out = u;
                out_first_side = true;
            }
            u = self.parent[u as usize];
        }
        let mut v = second;
        while v != join {
            let p = self.pred[v as usize] as usize;
            let room = if self.points_down(v) {
                self.flow[p]
            } else {
                self.cap[p] - self.flow[p]
            };
            if room <= delta {
                delta = room;
                out = v;
                out_first_side = false;
            }
            v = self.parent[v as usize];
        }
        if delta > 0 {
            self.flow[e] += entering_state as i64 * delta;
            let mut u = first;
            while u != join {
                let p = self.pred[u as usize] as usize;
                self.flow[p] += if self.points_down(u) { delta } else { -delta };
                u = self.parent[u as usize];
            }
            let mut v = second;
            while v != join {
                let p = self.pred[v as usize] as usize;
                self.flow[p] += if self.points_down(v) { -delta } else { delta };
                v = self.parent[v as usize];
            }
        }
        if out == NONE {
            // The entering arc itself blocks: it moves to its other bound.
            self.state[e] = -entering_state;
            return;
        }
        let leaving = self.pred[out as usize] as usize;
        self.state[leaving] = if self.flow[leaving] == 0 {
            LOWER
        } else {
            UPPER
        };
        self.state[e] = TREE;
        let (u_in, v_in) = if out_first_side {
            (first, second)
        } else {
            (second, first)
        };
        // The cut-off subtree (rooted at `out`, holding `u_in`) hangs from `v_in` through `e`:
        // its potentials shift so that `e`'s reduced cost becomes 0.
        let rc = self.reduced_cost(e);
        let sigma = if u_in == self.head[e] { rc } else { -rc };
        self.rehang(u_in, v_in, out, e as u32);
        self.shift_subtree(u_in, sigma);
    }

    /// Makes `u_in` the root of the subtree of `out` (reversing the path between them) and hangs
    /// it from `v_in` through arc `e`.
    fn rehang(&mut self, u_in: u32, v_in: u32, out: u32, e: u32) {
        let mut path = Vec::new();
        let mut x = u_in;
        loop {
            path.push(x);
            if x == out {
                break;
            }
            x = self.parent[x as usize];
        }
        for &x in &path {
            self.detach(x);
        }
        let old_pred: Vec<u32> = path.iter().map(|&x| self.pred[x as usize]).collect();
        self.pred[u_in as usize] = e;
        self.attach(u_in, v_in);
        for i in 1..path.len() {
            self.pred[path[i] as usize] = old_pred[i - 1];
            self.attach(path[i], path[i - 1]);
        }
    }

    /// Removes `c` from its parent's child list.
    fn detach(&mut self, c: u32) {
        let (prev, next) = (self.prev_sib[c as usize], self.next_sib[c as usize]);
        if prev != NONE {
            self.next_sib[prev as usize] = next;
        } else {
            let p = self.parent[c as usize];
            self.first_child[p as usize] = next;
        }
        if next != NONE {
            self.prev_sib[next as usize] = prev;
        }
    }

    /// Makes `c` a child of `p`.
    fn attach(&mut self, c: u32, p: u32) {
        let first = self.first_child[p as usize];
        self.next_sib[c as usize] = first;
        self.prev_sib[c as usize] = NONE;
        if first != NONE {
            self.prev_sib[first as usize] = c;
        }
        self.first_child[p as usize] = c;
        self.parent[c as usize] = p;
    }

    /// Renews the depths of the subtree rooted at `top` and adds `sigma` to its potentials.
    fn shift_subtree(&mut self, top: u32, sigma: i64) {
        let visit = |g: &mut ChainFlow, u: u32| {
            let p = g.parent[u as usize] as usize;
            g.depth[u as usize] = g.depth[p] + 1;
            g.pot[u as usize] += sigma;
        };
        visit(self, top);
        let mut u = top;
        loop {
            let child = self.first_child[u as usize];
            if child != NONE {
                u = child;
                visit(self, u);
                continue;
            }
            loop {
                if u == top {
                    return;
                }
                let next = self.next_sib[u as usize];
                if next != NONE {
                    u = next;
                    visit(self, u);
                    break;
                }
                u = self.parent[u as usize];
            }
        }
    }

    /// Checks the optimality conditions and flow conservation (tests): every non-tree arc at a
    /// bound with a reduced cost of the right sign, every tree arc of reduced cost 0.
    #[cfg(test)]
    pub(crate) fn check_optimal(&self) {
        let mut balance = vec![0i64; self.nodes + 1];
        for e in 0..self.tail.len() {
            let f = self.flow[e];
            if e >= self.first_link {
                // Root links carry nothing: no arc leaves the root.
                assert_eq!(f, 0);
                continue;
            }
            assert!(
                f >= 0 && f <= self.cap[e],
                "arc {e}: flow {f} cap {}",
                self.cap[e]
            );
            balance[self.tail[e] as usize] -= f;
            balance[self.head[e] as usize] += f;
            let rc = self.reduced_cost(e);
            match self.state[e] {
                TREE => assert_eq!(rc, 0, "tree arc {e}"),
                LOWER => assert!(f == 0 && (rc >= 0 || self.cap[e] == 0), "arc {e}"),
                _ => assert!(f == self.cap[e] && rc <= 0, "arc {e}"),
            }
        }
        // Each interval's units leave its tail and reach its head, by its arc or the chain.
        let mut want = vec![0i64; self.nodes + 1];
        for k in 0..self.intervals {
            want[self.tail[k] as usize] -= self.cap[k];
            want[self.head[k] as usize] += self.cap[k];
        }
        assert_eq!(balance, want);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Min-cost flow by successive shortest paths (Bellman-Ford) on the same problem: send each
    /// interval's units either over its own arc or along the chain. Returns the least cost.
    fn reference(chain: &[i64], arcs: &[(u32, u32, i64, i64)]) -> i64 {
        // Start from the all-missed flow and cancel negative cycles: moving units of interval k
        // from its arc onto the chain saves cost[k] per unit. A residual graph over the nodes:
        // chain forward with room, chain backward with flow, interval backward (un-miss) with
        // flow at -cost, interval forward with room at +cost.
        let n = chain.len() + 1;
        let mut chain_flow = vec![0i64; chain.len()];
        let mut miss: Vec<i64> = arcs.iter().map(|a| a.2).collect();
        loop {
            // Edges: (from, to, cost, which) with which = chain fwd/back, interval back/fwd.
            let mut edges: Vec<(usize, usize, i64, usize, i8)> = Vec::new();
            for t in 0..chain.len() {
                if chain_flow[t] < chain[t] {
                    edges.push((t, t + 1, 0, t, 0));
                }
                if chain_flow[t] > 0 {
                    edges.push((t + 1, t, 0, t, 1));
                }
            }
            for (k, &(a, b, cap, cost)) in arcs.iter().enumerate() {
                if miss[k] > 0 {
                    edges.push((b as usize, a as usize, -cost, k, 2));
                }
                if miss[k] < cap {
                    edges.push((a as usize, b as usize, cost, k, 3));
                }
            }
            // Bellman-Ford from a virtual source to every node, looking for a negative cycle.
            let mut dist = vec![0i64; n];
            let mut via: Vec<Option<usize>> = vec![None; n];
            let mut last = None;
            for _ in 0..n {
                last = None;
                for (i, &(u, v, c, _, _)) in edges.iter().enumerate() {
                    if dist[u] + c < dist[v] {
                        dist[v] = dist[u] + c;
                        via[v] = Some(i);
                        last = Some(v);
                    }
                }
            }
            let Some(mut x) = last else {
                return arcs.iter().zip(&miss).map(|(a, &m)| a.3 * m).sum::<i64>();
            };
            for _ in 0..n {
                x = edges[via[x].unwrap()].0;
            }
            let mut cycle = Vec::new();
            let mut y = x;
            loop {
                let i = via[y].unwrap();
                cycle.push(i);
                y = edges[i].0;
                if y == x {
                    break;
                }
            }
            let room = |&(_, _, _, w, kind): &(usize, usize, i64, usize, i8)| match kind {
                0 => chain[w] - chain_flow[w],
                1 => chain_flow[w],
                2 => miss[w],
                _ => arcs[w].2 - miss[w],
            };
            let d = cycle.iter().map(|&i| room(&edges[i])).min().unwrap();
            for &i in &cycle {
                let (_, _, _, w, kind) = edges[i];
                match kind {
                    0 => chain_flow[w] += d,
                    1 => chain_flow[w] -= d,
                    2 => miss[w] -= d,
                    _ => miss[w] += d,
                }
            }
        }
    }

    /// A chain's capacities and interval arcs `(tail, head, capacity, cost)`.
    type Graph = (Vec<i64>, Vec<(u32, u32, i64, i64)>);

    fn graph() -> impl Strategy<Value = Graph> {
        (2usize..9).prop_flat_map(|n| {
            (
                prop::collection::vec(0i64..12, n - 1),
                prop::collection::vec((0..n as u32, 0..n as u32, 1i64..8, 0i64..20), 0..10),
            )
                .prop_map(|(chain, raw)| {
                    let arcs = raw
                        .into_iter()
                        .filter(|&(a, b, _, _)| a != b)
                        .map(|(a, b, c, w)| (a.min(b), a.max(b), c, w))
                        .collect();
                    (chain, arcs)
                })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn simplex_finds_the_least_cost((chain, arcs) in graph(), warm in any::<bool>()) {
            let mut g = ChainFlow::new(&chain, arcs.len());
            // A warm start: the arcs that fit, in the order given, start cached.
            let mut room = chain.clone();
            for &(a, b, cap, cost) in &arcs {
                let span = a as usize..b as usize;
                let fits = warm && room[span.clone()].iter().all(|&r| r >= cap);
                if fits {
                    room[span].iter_mut().for_each(|r| *r -= cap);
                }
                g.add_interval(a, b, cap, cost, fits);
            }
            g.solve();
            g.check_optimal();
            let got: i64 = arcs.iter().enumerate().map(|(k, a)| a.3 * g.flow(k)).sum();
            prop_assert_eq!(got, reference(&chain, &arcs));
        }
    }

    #[test]
    fn a_cached_interval_leaves_its_arc_for_the_chain() {
        // Two overlapping intervals of 3 units over a chain of room 4: the dearer is cached.
        let mut g = ChainFlow::new(&[4, 4, 4], 2);
        let cheap = g.add_interval(0, 2, 3, 1, false);
        let dear = g.add_interval(1, 3, 3, 5, false);
        g.solve();
        g.check_optimal();
        assert_eq!(g.flow(dear), 0);
        // The chain's spare unit on 1..2 carries one unit of the cheap one.
        assert_eq!(g.flow(cheap), 2);
        assert_eq!(g.chain_flow(1), 4);
    }
}
