//! Functions of time for motors and load modulation.

use serde::{Deserialize, Serialize};

/// A scalar function of time. Angles and angular rates are in radians; frequencies in hertz.
///
/// ```
/// use mbconv_ir::TimeFunction;
/// let f = TimeFunction::Repeat {
///     function: Box::new(TimeFunction::Ramp { slope: 1.0, intercept: 0.0 }),
///     start: 0.0, width: 2.0, shift: 0.0,
/// };
/// assert_eq!(f.value(3.0), 1.0);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum TimeFunction {
    /// `f(t) = value`.
    Constant {
        /// The value.
        value: f64,
    },
    /// `f(t) = Σ cᵢ tⁱ`, coefficients in ascending powers.
    Polynomial {
        /// `[c0, c1, c2, …]`.
        coefficients: Vec<f64>,
    },
    /// `f(t) = amplitude · sin(2π · frequency · t + phase) + shift`.
    Sine {
        /// Amplitude.
        amplitude: f64,
        /// Frequency in hertz.
        frequency: f64,
        /// Phase in radians.
        #[serde(default)]
        phase: f64,
        /// Constant offset.
        #[serde(default)]
        shift: f64,
    },
    /// `f(t) = intercept + slope · t`.
    Ramp {
        /// Slope.
        slope: f64,
        /// Value at t = 0.
        #[serde(default)]
        intercept: f64,
    },
    /// Piecewise-linear interpolation of `[t, f]` points sorted by t; the end values are held
    /// outside the table.
    Data {
        /// The points.
        points: Vec<[f64; 2]>,
    },
    /// `f(t) = g(start + fmod(t + shift, width))` (C `fmod`: the remainder keeps the sign of
    /// its first argument).
    Repeat {
        /// The repeated function.
        function: Box<TimeFunction>,
        /// Start of the repeated window.
        start: f64,
        /// Width of the window.
        width: f64,
        /// Time shift.
        shift: f64,
    },
    /// Piece `i` applies on `[knots[i-1], knots[i])`; `pieces.len() == knots.len() + 1`.
    Piecewise {
        /// Breakpoints, ascending.
        knots: Vec<f64>,
        /// The pieces.
        pieces: Vec<TimeFunction>,
    },
    /// A value supplied at run time by a controller (Chrono CONTROLLER); `default` until then.
    External {
        /// Value used when nothing drives the input.
        #[serde(default)]
        default: f64,
    },
}

impl TimeFunction {
    /// The type name used in IR JSON.
    pub fn type_name(&self) -> &'static str {
        match self {
            TimeFunction::Constant { .. } => "constant",
            TimeFunction::Polynomial { .. } => "polynomial",
            TimeFunction::Sine { .. } => "sine",
            TimeFunction::Ramp { .. } => "ramp",
            TimeFunction::Data { .. } => "data",
            TimeFunction::Repeat { .. } => "repeat",
            TimeFunction::Piecewise { .. } => "piecewise",
            TimeFunction::External { .. } => "external",
        }
    }

    /// The value at time `t`.
    pub fn value(&self, t: f64) -> f64 {
        match self {
            TimeFunction::Constant { value } => *value,
            TimeFunction::Polynomial { coefficients } => {
                coefficients.iter().rev().fold(0.0, |acc, c| acc * t + c)
            }
            TimeFunction::Sine {
                amplitude,
                frequency,
                phase,
                shift,
            } => amplitude * (2.0 * std::f64::consts::PI * frequency * t + phase).sin() + shift,
            TimeFunction::Ramp { slope, intercept } => intercept + slope * t,
            TimeFunction::Data { points } => interpolate_held(points, t),
            TimeFunction::Repeat {
                function,
                start,
                width,
                shift,
            } => function.value(start + (t + shift) % width),
            TimeFunction::Piecewise { knots, pieces } => {
                let i = knots.partition_point(|k| *k <= t);
                pieces.get(i).map_or(0.0, |p| p.value(t))
            }
            TimeFunction::External { default } => *default,
        }
    }

    /// The time derivative at `t`: analytic where the function is smooth, a forward
    /// difference with step 1e-7 for `Repeat` (as Chrono does), 0 outside a data table.
    pub fn derivative(&self, t: f64) -> f64 {
        match self {
            TimeFunction::Constant { .. } | TimeFunction::External { .. } => 0.0,
            TimeFunction::Polynomial { coefficients } => coefficients
                .iter()
                .enumerate()
                .skip(1)
                .rev()
                .fold(0.0, |acc, (i, c)| acc * t + c * i as f64),
            TimeFunction::Sine {
                amplitude,
                frequency,
                phase,
                ..
            } => {
                let w = 2.0 * std::f64::consts::PI * frequency;
                amplitude * w * (w * t + phase).cos()
            }
            TimeFunction::Ramp { slope, .. } => *slope,
            TimeFunction::Data { points } => {
                let i = points.partition_point(|p| p[0] <= t);
                if i == 0 || i >= points.len() {
                    0.0
                } else {
                    let (a, b) = (points[i - 1], points[i]);
                    (b[1] - a[1]) / (b[0] - a[0])
                }
            }
            TimeFunction::Repeat { .. } => {
                let h = 1e-7;
                (self.value(t + h) - self.value(t)) / h
            }
            TimeFunction::Piecewise { knots, pieces } => {
                let i = knots.partition_point(|k| *k <= t);
                pieces.get(i).map_or(0.0, |p| p.derivative(t))
            }
        }
    }
}

/// Piecewise-linear interpolation of sorted `[x, y]` points, holding the end values outside.
/// An empty table gives 0.
///
/// ```
/// let table = [[0.0, 0.0], [1.0, 10.0]];
/// assert_eq!(mbconv_ir::model::function::interpolate_held(&table, 0.25), 2.5);
/// assert_eq!(mbconv_ir::model::function::interpolate_held(&table, 5.0), 10.0);
/// ```
pub fn interpolate_held(points: &[[f64; 2]], x: f64) -> f64 {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return 0.0;
    };
    if x <= first[0] {
        return first[1];
    }
    if x >= last[0] {
        return last[1];
    }
    let i = points.partition_point(|p| p[0] <= x);
    let (a, b) = (points[i - 1], points[i]);
    a[1] + (b[1] - a[1]) * (x - a[0]) / (b[0] - a[0])
}
