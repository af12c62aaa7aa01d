//! Print the size of the level-degree space (minimal covers) for a few thread counts.
use modelopt_model::DegreeOrdering;
use modelopt_optimizer::space::LevelDegrees;
fn main() {
    for n in [60u32, 1024, 4096, 65536] {
        let mut count = 0u64;
        let t = std::time::Instant::now();
        LevelDegrees {
            threads: n,
            ordering: DegreeOrdering::NonIncreasing,
        }
        .for_each(|_| count += 1);
        println!(
            "n = {n}: {count} minimal covers (non-increasing), enumerated in {:?}",
            t.elapsed()
        );
    }
}
