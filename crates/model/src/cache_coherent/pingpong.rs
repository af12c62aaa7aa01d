//! Single-line ping-pong estimates, seed 000 chapter 2.
//!
//! Eq. (2.1): `T_1 ≈ R_{L,S_s} + R_{R,S_r} + R_{R,M} + O` — the sender reads its buffer, copies it
//! into the receiver's buffer, and the receiver reads the line the sender modified. The
//! *estimate* (the "Estimation" columns of Tables 2.1–2.7) is the sum of the three measured reads
//! of Tables 1.6/1.7 with the standard deviation of Eq. (2.2), `σ = sqrt(σ_0² + σ_1² + σ_2²)`;
//! the *fitted* prediction adds the overhead O of the seed's clustered equations (2.6)–(2.20).

use super::CacheCoherent;
use crate::error::ModelError;
use crate::request::LineState;

/// A single-line ping-pong prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct PingPong {
    /// Eq. (2.1) without overhead, from the measured reads, ns.
    pub estimate_ns: f64,
    /// Eq. (2.2) standard deviation of the estimate, ns.
    pub estimate_stdev_ns: f64,
    /// The fitted prediction (clustered read costs plus O), when the seed gives an equation for
    /// this location and these states: (ns, equation reference).
    pub fitted: Option<(f64, String)>,
}

impl CacheCoherent {
    fn read(&self, location: &str, state: LineState) -> Result<super::Measured, ModelError> {
        self.reads
            .get(location)
            .and_then(|row| row.get(&state))
            .copied()
            .ok_or_else(|| ModelError::NotMeasured {
                machine: self.name.clone(),
                what: format!("measured read for state {state} at location `{location}`"),
            })
    }

    /// The ping-pong prediction between two threads whose caches are at `location`
    /// (a key of the machine's `[reads]`), with send buffers in `send` and receive buffers in
    /// `recv` (seed 000, Eqs. 2.1, 2.2 and the fitted Eqs. 2.6–2.20).
    pub fn ping_pong(
        &self,
        location: &str,
        send: LineState,
        recv: LineState,
    ) -> Result<PingPong, ModelError> {
        let local = self
            .local_location
            .as_deref()
            .ok_or_else(|| ModelError::NotMeasured {
                machine: self.name.clone(),
                what: "local-cache location (topology.local_location)".into(),
            })?;
        if recv == LineState::I {
            return Err(ModelError::NotModelled {
                what: "a receive buffer in I".into(),
                why: "the receiver polls it (seed 000, ch. 2)".into(),
            });
        }
        let r0 = self.read(local, send)?;
        let r1 = self.read(location, recv)?;
        let r2 = self.read(location, LineState::M)?;
        let estimate_ns = r0.avg + r1.avg + r2.avg;
        let estimate_stdev_ns = (r0.stdev.powi(2) + r1.stdev.powi(2) + r2.stdev.powi(2)).sqrt();
        let fitted = self
            .ping_pong
            .iter()
            .find(|f| {
                f.location == location
                    && f.send_states.contains(&send)
                    && f.recv_states.contains(&recv)
            })
            .map(|f| -> Result<(f64, String), ModelError> {
                let recv_cost = self.read(location, f.recv_read_as.unwrap_or(recv))?.avg;
                Ok((r0.avg + recv_cost + r2.avg + f.overhead, f.equation.clone()))
            })
            .transpose()?;
        Ok(PingPong {
            estimate_ns,
            estimate_stdev_ns,
            fitted,
        })
    }
}
