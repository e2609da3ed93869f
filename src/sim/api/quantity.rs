//! Resource quantities (`500m`, `2`, `128Mi`, `1G`): parsing the strings users write into the
//! integer milli-CPU and byte counts the scheduler compares.

use serde_json::Value;
use std::borrow::Cow;

/// The regular expression upstream quotes when a quantity does not parse.
pub const QUANTITY_REGEX_MESSAGE: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/// A quantity as written in a manifest: a JSON number or a string.
///
/// A string is borrowed: the scheduler and the node accounting read every pod's requests, and
/// they are almost always strings.
pub fn quantity_text(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Number(n) => Some(Cow::Owned(n.to_string())),
        _ => None,
    }
}

/// Parses a quantity into thousandths of its unit (so `"500m"` → 500, `"2"` → 2000,
/// `"1Ki"` → 1_024_000). Returns `None` when the text is not a quantity or is negative, or the
/// value does not fit.
pub fn parse_milli(text: &str) -> Option<i64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    if number.is_empty() || number.starts_with('-') {
        return None;
    }
    let number = number.strip_prefix('+').unwrap_or(number);
    let (int_part, frac_part) = number.split_once('.').unwrap_or((number, ""));
    if !int_part.bytes().all(|b| b.is_ascii_digit())
        || !frac_part.bytes().all(|b| b.is_ascii_digit())
        || (int_part.is_empty() && frac_part.is_empty())
    {
        return None;
    }
    // Value in nano-units as i128 so that `0.001m` style inputs still round sensibly.
    let int_v: i128 = if int_part.is_empty() {
        0
    } else {
        int_part.parse().ok()?
    };
    let frac_digits = frac_part.len().min(9);
    let frac_v: i128 = if frac_digits == 0 {
        0
    } else {
        frac_part[..frac_digits].parse::<i128>().ok()? * 10i128.pow(9 - frac_digits as u32)
    };
    let nanos = int_v.checked_mul(1_000_000_000)?.checked_add(frac_v)?;
    let scaled = match suffix {
        "" => nanos,
        "m" => nanos / 1000,
        "u" => nanos / 1_000_000,
        "n" => nanos / 1_000_000_000,
        "k" => nanos.checked_mul(1000)?,
        "M" => nanos.checked_mul(1_000_000)?,
        "G" => nanos.checked_mul(1_000_000_000)?,
        "T" => nanos.checked_mul(1_000_000_000_000)?,
        "P" => nanos.checked_mul(1_000_000_000_000_000)?,
        "Ki" => nanos.checked_mul(1 << 10)?,
        "Mi" => nanos.checked_mul(1 << 20)?,
        "Gi" => nanos.checked_mul(1 << 30)?,
        "Ti" => nanos.checked_mul(1 << 40)?,
        "Pi" => nanos.checked_mul(1 << 50)?,
        s if s.starts_with(['e', 'E']) => {
            let exp: u32 = s[1..].parse().ok()?;
            if exp > 18 {
                return None;
            }
            nanos.checked_mul(10i128.pow(exp))?
        }
        _ => return None,
    };
    // nano-units → milli-units, rounding up as Kubernetes does for MilliValue.
    let milli = (scaled + 999_999) / 1_000_000;
    i64::try_from(milli).ok()
}

/// Parses a CPU quantity into milli-CPU.
pub fn parse_cpu_milli(v: &Value) -> Option<i64> {
    parse_milli(&quantity_text(v)?)
}

/// Parses a memory quantity into bytes (rounded up).
pub fn parse_bytes(v: &Value) -> Option<i64> {
    let milli = parse_milli(&quantity_text(v)?)?;
    Some((milli + 999) / 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_parse_like_kubernetes() {
        assert_eq!(parse_milli("500m"), Some(500));
        assert_eq!(parse_milli("2"), Some(2000));
        assert_eq!(parse_milli("0.5"), Some(500));
        assert_eq!(parse_milli("128Mi"), Some(128 * 1024 * 1024 * 1000));
        assert_eq!(parse_milli("1G"), Some(1_000_000_000_000));
        assert_eq!(parse_milli("1e3"), Some(1_000_000));
        assert_eq!(parse_milli("abc"), None);
        assert_eq!(parse_milli("-1"), None);
        assert_eq!(parse_milli("1Xi"), None);
    }
}
