//! Smallest, largest, mean and standard deviation of a tensor's finite values, computed part
//! by part: each run of [`RUN`] values in two passes (its mean, then the squared deviations
//! from it), runs and parts combined with Chan's formula, so that neither a long tensor nor
//! a large offset loses precision.

use serde::Serialize;

/// Values decoded and summed at a time.
const RUN: usize = 1024;

/// Independent sums a run is added up in.
const LANES: usize = 4;

/// Figures over some finite values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Moments {
    /// How many.
    #[serde(skip)]
    pub n: u64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Mean.
    pub mean: f64,
    /// Sum of squared deviations from the mean.
    #[serde(skip)]
    pub m2: f64,
}

impl Moments {
    /// The population standard deviation.
    pub fn std(&self) -> f64 {
        (self.m2 / self.n as f64).sqrt()
    }

    /// Combines `other`, figures over other values, into these.
    pub fn merge(&mut self, other: &Moments) {
        let n = self.n + other.n;
        let delta = other.mean - self.mean;
        let (a, b) = (self.n as f64, other.n as f64);
        self.mean += delta * b / n as f64;
        self.m2 += other.m2 + delta * delta * a * b / n as f64;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.n = n;
    }

    /// Figures over the finite values of `values`; `None` if there is none.
    pub fn of(values: impl Iterator<Item = f64>) -> Option<Moments> {
        let mut all: Option<Moments> = None;
        let mut add = |part: Moments| match &mut all {
            Some(all) => all.merge(&part),
            None => all = Some(part),
        };
        let mut run = [0f64; RUN];
        let mut n = 0;
        for v in values.filter(|v| v.is_finite()) {
            run[n] = v;
            n += 1;
            if n == RUN {
                add(Moments::of_run(&run));
                n = 0;
            }
        }
        if n > 0 {
            add(Moments::of_run(&run[..n]));
        }
        all
    }

    /// Figures over `run`, finite values and at least one, in two passes, each summing in
    /// [`LANES`] independent sums that the compiler keeps in vector registers.
    fn of_run(run: &[f64]) -> Moments {
        let (mut sum, mut min, mut max) = (
            [0f64; LANES],
            [f64::INFINITY; LANES],
            [f64::NEG_INFINITY; LANES],
        );
        let lanes = run.chunks_exact(LANES);
        let rest = lanes.remainder();
        for v in lanes {
            for k in 0..LANES {
                sum[k] += v[k];
                min[k] = if v[k] < min[k] { v[k] } else { min[k] };
                max[k] = if v[k] > max[k] { v[k] } else { max[k] };
            }
        }
        let total = sum.iter().sum::<f64>() + rest.iter().sum::<f64>();
        let mean = total / run.len() as f64;
        let mut m2 = [0f64; LANES];
        for v in run.chunks_exact(LANES) {
            for k in 0..LANES {
                m2[k] += (v[k] - mean) * (v[k] - mean);
            }
        }
        let squares = |v: &f64| (v - mean) * (v - mean);
        let fold = |a: [f64; LANES], f: fn(f64, f64) -> f64, rest: f64| a.into_iter().fold(rest, f);
        Moments {
            n: run.len() as u64,
            min: fold(
                min,
                f64::min,
                rest.iter().copied().fold(f64::INFINITY, f64::min),
            ),
            max: fold(
                max,
                f64::max,
                rest.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            ),
            mean,
            m2: m2.iter().sum::<f64>() + rest.iter().map(squares).sum::<f64>(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_of_a_few_values_skip_what_is_not_finite() {
        let m = Moments::of([1.0, 0.0, -2.0, f64::NAN, f64::INFINITY, 3.0].into_iter()).unwrap();
        assert_eq!((m.n, m.min, m.max, m.mean), (4, -2.0, 3.0, 0.5));
        // Squared deviations from 0.5 sum to 13: population std sqrt(13 / 4).
        assert!((m.std() - 3.25f64.sqrt()).abs() < 1e-12);
        assert_eq!(Moments::of([f64::NAN].into_iter()), None);
    }

    #[test]
    fn parts_combine_to_the_whole_even_far_from_zero() {
        let values: Vec<f64> = (0..5000).map(|i| 1e9 + f64::from(i % 7)).collect();
        let whole = Moments::of(values.iter().copied()).unwrap();
        let mut a = Moments::of(values[..1234].iter().copied()).unwrap();
        a.merge(&Moments::of(values[1234..].iter().copied()).unwrap());
        assert!((whole.mean - a.mean).abs() < 1e-6 && (whole.std() - a.std()).abs() < 1e-9);
        assert!((whole.std() - 2.0).abs() < 1e-3, "{}", whole.std());
    }
}
