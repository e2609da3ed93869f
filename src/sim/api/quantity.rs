//! Resource quantities (`500m`, `2`, `128Mi`, `1G`): parsing the strings users write into the
//! integer milli-CPU and byte counts the scheduler compares, and the canonical text the API
//! server stores for each (`1024Mi` is kept as `1Gi`, `0.5` as `500m`).

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

/// How a quantity's suffix says it should be written (`resource.Format`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Format {
    /// `12e6`.
    DecimalExponent,
    /// `12Mi` (powers of 1024).
    BinarySI,
    /// `12M` (powers of 1000), and plain numbers.
    DecimalSI,
}

/// `quantitySuffixer.interpret`: the base, exponent and format a suffix stands for.
fn interpret_suffix(suffix: &str) -> Option<(u32, i32, Format)> {
    let decimal = |exp| Some((10, exp, Format::DecimalSI));
    let binary = |exp| Some((2, exp, Format::BinarySI));
    match suffix {
        "" => decimal(0),
        "n" => decimal(-9),
        "u" => decimal(-6),
        "m" => decimal(-3),
        "k" => decimal(3),
        "M" => decimal(6),
        "G" => decimal(9),
        "T" => decimal(12),
        "P" => decimal(15),
        "E" => decimal(18),
        "Ki" => binary(10),
        "Mi" => binary(20),
        "Gi" => binary(30),
        "Ti" => binary(40),
        "Pi" => binary(50),
        "Ei" => binary(60),
        _ => {
            let rest = suffix.strip_prefix(['e', 'E']).filter(|r| !r.is_empty())?;
            let exp: i64 = rest.parse().ok()?;
            Some((10, i32::try_from(exp).ok()?, Format::DecimalExponent))
        }
    }
}

/// The parts `parseQuantityString` splits a quantity into: its sign, the integer digits with
/// leading zeros removed (`"0"` when none are left), the fractional digits, and the suffix.
struct QuantityParts<'a> {
    negative: bool,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// `parseQuantityString`. Returns `None` where upstream returns `ErrFormatWrong`.
fn split_quantity(text: &str) -> Option<QuantityParts<'_>> {
    let b = text.as_bytes();
    let end = b.len();
    let mut pos = 0;
    let negative = b.first() == Some(&b'-');
    if matches!(b.first(), Some(b'-' | b'+')) {
        pos = 1;
    }
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        return Some(QuantityParts {
            negative,
            num: "0",
            denom: "",
            suffix: "",
        });
    }
    let digits_from =
        |from: usize| from + b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let num_end = digits_from(pos);
    let num = if num_end == pos {
        "0"
    } else {
        &text[pos..num_end]
    };
    pos = num_end;
    let mut denom = "";
    if pos < end && b[pos] == b'.' {
        let denom_end = digits_from(pos + 1);
        denom = &text[pos + 1..denom_end];
        pos = denom_end;
    }
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && matches!(b[pos], b'-' | b'+') {
        pos += 1;
    }
    if digits_from(pos) != end {
        return None;
    }
    Some(QuantityParts {
        negative,
        num,
        denom,
        suffix: &text[suffix_start..],
    })
}

/// The canonical text of a quantity, as the API server stores and prints it
/// (`ParseQuantity` followed by `Quantity.String`): the largest suffix of the kind written
/// (`1024Mi` → `1Gi`, `1000M` → `1G`, `1.5Gi` → `1536Mi`, `1500000` → `1500k`) that keeps the
/// number whole, never losing precision (`0.5` → `500m`, `1.1Ki` → `1126400m`; a binary amount
/// under 1024 or not a whole number is written with decimal suffixes). A quantity that was
/// already written canonically keeps its exact text, as upstream keeps the parsed string.
///
/// Returns `None` for text that is not a quantity, and for amounts too large to follow exactly
/// (about 10^29 and more), which callers leave as written.
pub fn canonical(text: &str) -> Option<String> {
    if text.is_empty() {
        return None;
    }
    if text == "0" {
        return Some(text.to_string());
    }
    let parts = split_quantity(text)?;
    let (base, exponent, mut format) = interpret_suffix(parts.suffix)?;
    let shifted = format!("{}{}", parts.num, parts.denom);
    let denom_len = i32::try_from(parts.denom.len()).ok()?;
    if reuses_text(&parts, &shifted, exponent, format) {
        return Some(text.to_string());
    }
    // The magnitude in nano-units, rounded away from zero as `ParseQuantity` rounds to nano.
    let digits: i128 = shifted.parse().ok()?;
    let pow10 = |e: u32| 10i128.checked_pow(e);
    let (numerator, denominator) = if base == 2 {
        let multiplier = 1i128.checked_shl(u32::try_from(exponent).ok()?)?;
        (
            digits.checked_mul(multiplier)?.checked_mul(1_000_000_000)?,
            pow10(denom_len.unsigned_abs())?,
        )
    } else {
        let scale = exponent.checked_sub(denom_len)?.checked_add(9)?;
        if scale >= 0 {
            (digits.checked_mul(pow10(scale.unsigned_abs())?)?, 1)
        } else {
            (digits, pow10(scale.unsigned_abs())?)
        }
    };
    // Checked arithmetic in i128 nano-units holds amounts up to about 1.7 × 10^29; larger ones
    // gave up above.
    let mut nanos = numerator / denominator + i128::from(numerator % denominator != 0);
    const NANO: i128 = 1_000_000_000;
    if format == Format::BinarySI {
        // Binary amounts are capped at the largest int64, and one under 1 is decimal.
        nanos = nanos.min(i128::from(i64::MAX) * NANO);
        if nanos < NANO {
            format = Format::DecimalSI;
        }
    }
    if nanos == 0 {
        return Some("0".to_string());
    }
    let sign = if parts.negative { "-" } else { "" };
    if format == Format::BinarySI && nanos >= 1024 * NANO && nanos % NANO == 0 {
        let mut mantissa = nanos / NANO;
        let mut power = 0;
        while mantissa >= 1024 && mantissa % 1024 == 0 {
            mantissa /= 1024;
            power += 1;
        }
        let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
            .get(power)
            .copied()
            .unwrap_or("");
        return Some(format!("{sign}{mantissa}{suffix}"));
    }
    // Decimal: every factor of ten moved into the exponent, then the exponent lowered to a
    // multiple of three (`AsCanonicalBytes`).
    let (mut mantissa, mut exp) = (nanos, -9i32);
    while mantissa % 10 == 0 {
        mantissa /= 10;
        exp += 1;
    }
    while exp % 3 != 0 {
        mantissa *= 10;
        exp -= 1;
    }
    let si = match exp {
        -9 => Some("n"),
        -6 => Some("u"),
        -3 => Some("m"),
        0 => Some(""),
        3 => Some("k"),
        6 => Some("M"),
        9 => Some("G"),
        12 => Some("T"),
        15 => Some("P"),
        18 => Some("E"),
        _ => None,
    };
    let suffix = match (format, si) {
        (Format::DecimalExponent, _) | (_, None) if exp != 0 => format!("e{exp}"),
        (_, si) => si.unwrap_or("").to_string(),
    };
    Some(format!("{sign}{mantissa}{suffix}"))
}

/// `Quantity.RoundUp(-3)` of a canonical quantity, as `SetDefaults_ResourceList` does to a
/// container's requests and limits: an amount finer than a milli-unit grows to the next one
/// away from zero (`100u` → `1m`, `1000001u` → `1001m`); coarser text is returned as it is.
pub fn round_up_to_milli(canonical_text: &str) -> String {
    let (digits, per_milli) = match canonical_text.as_bytes().last() {
        Some(b'u') => (&canonical_text[..canonical_text.len() - 1], 1_000),
        Some(b'n') => (&canonical_text[..canonical_text.len() - 1], 1_000_000),
        _ => return canonical_text.to_string(),
    };
    let Ok(amount) = digits.parse::<i128>() else {
        return canonical_text.to_string();
    };
    let milli = amount.unsigned_abs().div_ceil(per_milli);
    let sign = if amount < 0 { "-" } else { "" };
    let text = format!("{sign}{milli}m");
    canonical(&text).unwrap_or(text)
}

/// Whether `ParseQuantity` keeps the text it parsed as the quantity's string: a value that
/// fits its fast path and already looks canonical (a decimal whose digits neither start with 0
/// nor end in 000 at a scale that is a multiple of 3; a binary amount whose number is not a
/// multiple of 8).
fn reuses_text(parts: &QuantityParts<'_>, shifted: &str, exponent: i32, format: Format) -> bool {
    let len = |s: &str| i32::try_from(s.len()).unwrap_or(i32::MAX);
    let Ok(value) = shifted.parse::<i64>() else {
        return false;
    };
    match format {
        Format::BinarySI => {
            if !parts.denom.is_empty() || exponent < 0 {
                return false;
            }
            // Upstream's estimate of the digits a binary suffix adds: exponent × 3 / 10.
            let precision = 15 - len(parts.num) - exponent * 3 / 10 - 1;
            precision >= 0
                && value.checked_mul(1i64 << exponent.min(62)).is_some()
                && exponent % 10 == 0
                && value & 0x07 != 0
        }
        Format::DecimalSI | Format::DecimalExponent => {
            let precision = 18 - len(parts.num) - len(parts.denom);
            let scale = exponent - len(parts.denom);
            precision >= 0
                && scale >= -9
                && scale % 3 == 0
                && !shifted.ends_with("000")
                && !shifted.starts_with('0')
        }
    }
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

    /// Upstream's `TestQuantityParseEmit` and `TestQuantityString` cases that are written as
    /// text, and the forms people write in manifests.
    #[test]
    fn quantities_print_canonically_like_the_api_server() {
        let cases = [
            ("1Ki", "1Ki"),
            ("1Mi", "1Mi"),
            ("1Gi", "1Gi"),
            ("1024Mi", "1Gi"),
            ("1000M", "1G"),
            (".001Ki", "1024m"),
            (".000001Ki", "1024u"),
            (".000000001Ki", "1024n"),
            (".000000000001Ki", "2n"),
            ("-1024Mi", "-1Gi"),
            ("-1000M", "-1G"),
            ("0.5", "500m"),
            ("1000m", "1"),
            ("1500m", "1500m"),
            ("1.5", "1500m"),
            ("2", "2"),
            ("1.5Gi", "1536Mi"),
            ("1.1Ki", "1126400m"),
            ("0.5Ki", "512"),
            ("1500000", "1500k"),
            ("1000000", "1M"),
            ("128974848", "128974848"),
            ("129e6", "129e6"),
            ("1e3", "1e3"),
            ("1.5e3", "1500"),
            ("3e3", "3e3"),
            ("300e6", "300e6"),
            ("1e-3", "1e-3"),
            ("80e-3", "80e-3"),
            ("1000E", "1e21"),
            ("100m", "100m"),
            ("0.1", "100m"),
            ("1.0", "1"),
            ("0Mi", "0"),
            ("000", "0"),
            ("0", "0"),
            ("8Ei", "9223372036854775807"),
            ("1080n", "1080n"),
            ("0.00000108", "1080n"),
        ];
        for (text, want) in cases {
            assert_eq!(canonical(text).as_deref(), Some(want), "{text}");
        }
        for bad in ["", "abc", "1Xi", "1e", "1.2.3", "1Mi1"] {
            assert_eq!(canonical(bad), None, "{bad}");
        }
    }

    /// `SetDefaults_ResourceList` rounds every request and limit up to a milli-unit.
    #[test]
    fn amounts_finer_than_a_milli_unit_round_up() {
        for (text, want) in [
            ("100u", "1m"),
            ("1000001u", "1001m"),
            ("1n", "1m"),
            ("-100u", "-1m"),
            ("1500u", "2m"),
            ("1000u", "1m"),
            ("250m", "250m"),
            ("1Gi", "1Gi"),
        ] {
            assert_eq!(round_up_to_milli(text), want, "{text}");
        }
        assert_eq!(
            canonical("0.0001")
                .map(|c| round_up_to_milli(&c))
                .as_deref(),
            Some("1m")
        );
    }
}
