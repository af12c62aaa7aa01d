use modelopt_model::{machine, Collective, DegreeOrdering, Request};
use modelopt_optimizer::{rank, Objective, SearchOptions};
use std::time::{Duration, Instant};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u32 = args[1].parse().unwrap();
    let coll = if args.get(2).map(|s| s.as_str()) == Some("reduce") {
        Collective::Reduce
    } else {
        Collective::Bcast
    };
    let phi = machine::load("xeon-phi").unwrap();
    let request = Request::new(coll, n).unwrap();
    let mut options = SearchOptions::new(Objective::Min, 1);
    if args.get(3).map(|s| s.as_str()) == Some("any") {
        options.space.ordering = DegreeOrdering::Any;
    }
    options.limits.time_limit = Some(Duration::from_secs(10));
    let algorithms = phi.algorithms_for(coll);
    let _ = rank(algorithms[0].as_ref(), &request, &options).unwrap();
    let t = Instant::now();
    let r = rank(algorithms[0].as_ref(), &request, &options).unwrap();
    println!(
        "{:?} {:?} {:?} {:?}",
        t.elapsed(),
        r.best[0].params.to_string(),
        r.stats,
        r.exactness
    );
}
