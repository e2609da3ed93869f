//! `IntOrString`: a count such as `maxSurge: 1` or a percentage such as `maxSurge: 25%`, and its
//! resolution against a total with the rounding upstream uses.

use serde::{Deserialize, Serialize};
use std::fmt;

/// `intstr.IntOrString`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum IntOrString {
    Int(i32),
    String(String),
}

impl fmt::Display for IntOrString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Int(i) => write!(f, "{i}"),
            Self::String(s) => write!(f, "{s}"),
        }
    }
}

impl IntOrString {
    /// The value as JSON renders it, which is how v1.34+ API errors print it (`0`, `"0%"`).
    pub fn to_json(&self) -> String {
        match self {
            Self::Int(i) => i.to_string(),
            Self::String(s) => serde_json::Value::String(s.clone()).to_string(),
        }
    }

    /// Whether this is a percentage string.
    pub fn is_percent(&self) -> bool {
        matches!(self, Self::String(s) if s.ends_with('%'))
    }

    /// The raw number: the integer, or the number before `%` (`"25%"` → 25). `None` for a string
    /// that is not a valid percentage.
    pub fn raw_number(&self) -> Option<i64> {
        match self {
            Self::Int(i) => Some(i64::from(*i)),
            Self::String(s) => {
                let digits = s.strip_suffix('%')?;
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                digits.parse::<i64>().ok()
            }
        }
    }

    /// `intstr.GetScaledValueFromIntOrPercent`: an integer is used as given; a percentage of
    /// `total` is rounded up when `round_up` (maxSurge) and down otherwise (maxUnavailable).
    ///
    /// Example: `"25%"` of 10 is 2.5, so 3 as a surge and 2 as an unavailable count.
    ///
    /// # Errors
    /// A string without `%` (even `"5"`) is an error, as upstream.
    pub fn scaled_value(&self, total: i32, round_up: bool) -> Result<i32, String> {
        match self {
            Self::Int(i) => Ok(*i),
            Self::String(s) => {
                let Some(p) = self.raw_number() else {
                    return Err(format!(
                        "invalid value for IntOrString: invalid value {s:?}"
                    ));
                };
                // Integer arithmetic gives the same result as upstream's float ceil/floor for
                // every int32 input, without float rounding surprises.
                let product = p.saturating_mul(i64::from(total));
                let v = if round_up {
                    product.div_euclid(100) + i64::from(product.rem_euclid(100) != 0)
                } else {
                    product.div_euclid(100)
                };
                Ok(i32::try_from(v).unwrap_or(if v < 0 { i32::MIN } else { i32::MAX }))
            }
        }
    }
}
