//! Unix milliseconds <-> ISO-8601 in UTC, for people at a terminal.

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The wall clock, in Unix milliseconds.
#[cfg(feature = "serve")]
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// `2016-04-30T11:18:25.796Z`.
pub fn iso(ms: i64) -> String {
    let (days, rest) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (y, m, d) = civil_from_days(days);
    let (h, min, s, milli) = (
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000,
    );
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{milli:03}Z")
}

/// Unix milliseconds, or `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`.
pub fn parse_timestamp(text: &str) -> Result<i64, String> {
    if let Ok(ms) = text.parse::<i64>() {
        return Ok(ms);
    }
    let bad = || {
        format!("--timestamp {text:?} is neither Unix milliseconds nor ISO-8601 (2024-05-01T12:00:00.000Z)")
    };
    let b = text.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return Err(bad());
    }
    let num = |range: std::ops::Range<usize>| -> Result<i64, String> {
        let s = text.get(range).ok_or_else(bad)?;
        if s.bytes().all(|c| c.is_ascii_digit()) {
            s.parse().map_err(|_| bad())
        } else {
            Err(bad())
        }
    };
    let (y, mo, d, h, mi, s) = (
        num(0..4)?,
        num(5..7)?,
        num(8..10)?,
        num(11..13)?,
        num(14..16)?,
        num(17..19)?,
    );
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return Err(bad());
    }
    let mut at = 19;
    let mut millis = 0;
    if b.get(at) == Some(&b'.') {
        let start = at + 1;
        at = start;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        let frac = &text[start..at];
        if frac.is_empty() || frac.len() > 3 {
            return Err(format!(
                "--timestamp {text:?}: give at most millisecond precision"
            ));
        }
        millis = format!("{frac:0<3}").parse::<i64>().map_err(|_| bad())?;
    }
    let offset_min = match &text[at..] {
        "Z" | "z" => 0,
        zone if zone.len() == 6
            && (zone.starts_with('+') || zone.starts_with('-'))
            && &zone[3..4] == ":" =>
        {
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            sign * (num(at + 1..at + 3)? * 60 + num(at + 4..at + 6)?)
        }
        _ => return Err(bad()),
    };
    let days = days_from_civil(y, mo, d);
    Ok(((days * 24 + h) * 60 + mi - offset_min) * 60_000 + s * 1000 + millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_known_dates() {
        assert_eq!(iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso(1_462_015_105_796), "2016-04-30T11:18:25.796Z");
        assert_eq!(iso(1_288_834_974_657), "2010-11-04T01:42:54.657Z");
        assert_eq!(
            parse_timestamp("2016-04-30T11:18:25.796Z").unwrap(),
            1_462_015_105_796
        );
        assert_eq!(
            parse_timestamp("2016-04-30T13:18:25.796+02:00").unwrap(),
            1_462_015_105_796
        );
        assert_eq!(
            parse_timestamp("2016-04-30T11:18:25.7Z").unwrap(),
            1_462_015_105_700
        );
        assert_eq!(parse_timestamp("1462015105796").unwrap(), 1_462_015_105_796);
        for ms in [
            -86_400_001,
            951_782_400_000,
            4_102_444_800_000,
            253_402_300_799_999,
        ] {
            assert_eq!(parse_timestamp(&iso(ms)).unwrap(), ms);
        }
        for bad in [
            "yesterday",
            "2016-13-01T00:00:00Z",
            "2016-04-30T11:18:25.7961Z",
            "2016-04-30T11:18:25",
        ] {
            assert!(parse_timestamp(bad).is_err(), "{bad}");
        }
    }
}
