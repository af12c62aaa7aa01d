//! The cluster barrier of seed 002 §6.1: recursive doubling on each blade, an MPI (Bruck)
//! barrier among the blades' PPEs, and a binomial release on each blade.

use super::{barrier, ceil_log2, Blade, Cluster, Terms};

/// Hybrid barrier over N whole blades of `spes_per_blade` SPEs (seed 002 §6.1):
///
/// - on-blade recursive doubling, T_rd = 3·L_1(1) + L_2(1) for 16 SPEs (Table 1, row 2);
/// - SPE ACKs to the blade's PPE, T_ack = L_spe-ppe(1) + (s_b − 1) × g_spe-ppe(1);
/// - Bruck among the PPEs (MPICH2), T_bruck = ⌈log2 N⌉ × [L_node(1) + g_node(1)];
/// - release: the PPE ACKs one SPE, which releases the others binomially,
///   T_rel = L_ppe-spe(1) + (⌈log2 s_b⌉ − 1) L_1(1) + L_2(1) (3·L_1(1) + L_2(1) for 16 SPEs).
///
/// `T = max(T_rd, T_ack + T_bruck) + T_rel`.
///
/// Readings (see `docs/cell.md`): the text gives the ACK collection as "L_spe-ppe(1) +
/// g_spe-ppe(1)" but §6.2 describes the same step as "the latency from SPE to PPE and 15 times
/// the gap"; we use s_b − 1 = 15 gaps. The text says the on-blade recursive doubling overlaps
/// both the ACK collection and the Bruck barrier ("the cost will be the maximum"); since the
/// Bruck barrier starts only once the PPE has every ACK, we read both overlaps as one:
/// max(T_rd, T_ack + T_bruck).
pub fn hybrid_barrier(b: &Blade, c: &Cluster, blades: u32, spes_per_blade: u32) -> Terms {
    let rd = barrier::recursive_doubling_two(b, spes_per_blade).min_ns();
    let ack = c.spe_ppe_latency + f64::from(spes_per_blade.saturating_sub(1)) * c.spe_ppe_gap;
    let bruck_rounds = ceil_log2(blades);
    let bruck = f64::from(bruck_rounds) * (c.node_latency + c.node_gap);
    let release_tree =
        f64::from(ceil_log2(spes_per_blade).saturating_sub(1)) * b.intra.l1() + b.inter.l1();
    let mut t = Terms::new();
    if ack + bruck >= rd {
        t.add(
            format!(
                "SPE ACKs to the PPE: L_spe-ppe(1) + {} × g_spe-ppe(1) (overlaps the on-blade recursive doubling)",
                spes_per_blade.saturating_sub(1)
            ),
            ack,
        );
        t.add(
            format!("Bruck among {blades} blades: {bruck_rounds} × [L_node(1) + g_node(1)]"),
            bruck,
        );
    } else {
        t.add(
            "on-blade recursive doubling (hides the PPE ACKs and the Bruck barrier)",
            rd,
        );
    }
    t.add("L_ppe-spe(1): PPE releases one SPE", c.ppe_spe_latency);
    t.add(
        "binomial release on the blade: (⌈log2 s⌉ − 1) L_1(1) + L_2(1)",
        release_tree,
    );
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::testing::blade;

    #[test]
    fn four_blades() {
        let b = blade();
        let c = Cluster {
            blades: 4,
            spe_ppe_latency: 400.0,
            spe_ppe_gap: 20.0,
            ppe_spe_latency: 350.0,
            node_latency: 5000.0,
            node_gap: 1000.0,
        };
        // T_rd = 3·100 + 300 = 600; T_ack = 400 + 15·20 = 700; T_bruck = 2·6000 = 12000;
        // T_rel = 350 + 600 = 950. T = max(600, 12700) + 950 = 13650.
        assert_eq!(hybrid_barrier(&b, &c, 4, 16).cost().min_ns, 13650.0);
        // One blade: no Bruck rounds; max(600, 700) + 950 = 1650.
        assert_eq!(hybrid_barrier(&b, &c, 1, 16).cost().min_ns, 1650.0);
    }
}
