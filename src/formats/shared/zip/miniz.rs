//! Member lookup as torch's zip reader does it: torch finds every record with miniz's
//! `mz_zip_reader_locate_file(name, NULL, 0)`, which, with the central directory sorted at
//! open (`mz_zip_reader_sort_central_dir_offsets_by_filename`, a heap sort of the members by
//! their names in ASCII lower case), binary-searches it case-insensitively. So `DATA.PKL`
//! answers for `data.pkl`, a member anywhere in the directory is found, and of several names
//! equal but for case, the one the search meets first wins: neither the first nor the last in
//! the directory. This is a transcription of those three functions (miniz 3.0, the copy torch
//! builds); `tests/fixtures/pickle/miniz_lookups.tsv` holds it to torch's own answers.

use std::cmp::Ordering;

/// `MZ_TOLOWER`: ASCII letters only.
fn lower(b: u8) -> u8 {
    b.to_ascii_lowercase()
}

/// `mz_zip_reader_filename_less`.
fn less(l: &[u8], r: &[u8]) -> bool {
    match l.iter().zip(r).find(|(a, b)| lower(**a) != lower(**b)) {
        Some((a, b)) => lower(*a) < lower(*b),
        None => l.len() < r.len(),
    }
}

/// `mz_zip_filename_compare` of a member's name with the name looked for.
fn compare(name: &[u8], wanted: &[u8]) -> Ordering {
    match name
        .iter()
        .zip(wanted)
        .find(|(a, b)| lower(**a) != lower(**b))
    {
        Some((a, b)) => lower(*a).cmp(&lower(*b)),
        None => name.len().cmp(&wanted.len()),
    }
}

/// The members' indices in the order miniz sorts them, from their names in directory order.
pub fn sorted(names: &[&[u8]]) -> Vec<u32> {
    let size = names.len();
    let mut indices: Vec<u32> = (0..size)
        .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
        .collect();
    if size <= 1 {
        return indices;
    }
    let name = |i: u32| names.get(i as usize).copied().unwrap_or_default();
    let less_at = |ix: &[u32], a: usize, b: usize| match (ix.get(a), ix.get(b)) {
        (Some(&x), Some(&y)) => less(name(x), name(y)),
        _ => false,
    };
    let sift = |ix: &mut Vec<u32>, mut root: usize, end: usize| loop {
        let mut child = (root << 1) + 1;
        if child >= end {
            break;
        }
        if child + 1 < end && less_at(ix, child, child + 1) {
            child += 1;
        }
        if !less_at(ix, root, child) {
            break;
        }
        ix.swap(root, child);
        root = child;
    };
    let mut start = (size - 2) >> 1;
    loop {
        sift(&mut indices, start, size);
        if start == 0 {
            break;
        }
        start -= 1;
    }
    let mut end = size - 1;
    while end > 0 {
        indices.swap(end, 0);
        sift(&mut indices, 0, end);
        end -= 1;
    }
    indices
}

/// `mz_zip_locate_file_binary_search`: the index of the member named `wanted` (ignoring
/// ASCII case) that the search meets first.
pub fn locate(names: &[&[u8]], sorted: &[u32], wanted: &[u8]) -> Option<usize> {
    let (mut low, mut high) = (0i64, i64::try_from(sorted.len()).ok()? - 1);
    while low <= high {
        let mid = low + ((high - low) >> 1);
        let index = *sorted.get(usize::try_from(mid).ok()?)?;
        let name = names.get(index as usize)?;
        match compare(name, wanted) {
            Ordering::Equal => return Some(index as usize),
            Ordering::Less => low = mid + 1,
            Ordering::Greater => high = mid - 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// torch 2.15.0's `PyTorchFileReader.get_record_offset` on archives written by zipfile
    /// (`tests/fixtures/gen/miniz_lookups.py`): each row gives the members in directory order
    /// and, for a name looked up, the index of the member torch reads.
    #[test]
    fn lookups_are_those_torch_makes() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pickle/miniz_lookups.tsv");
        let text = std::fs::read_to_string(path).unwrap();
        let mut checked = 0;
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let [members, wanted, expected] = line.split('\t').collect::<Vec<_>>()[..] else {
                panic!("bad row {line}");
            };
            let names: Vec<&[u8]> = members.split('|').map(str::as_bytes).collect();
            let order = sorted(&names);
            let found = locate(&names, &order, wanted.as_bytes());
            let expected = expected.parse::<usize>().ok();
            assert_eq!(found, expected, "{members} / {wanted}");
            checked += 1;
        }
        assert!(checked >= 1000, "{checked} rows");
    }

    #[test]
    fn case_is_ignored_and_the_search_picks_among_equal_names() {
        let names: Vec<&[u8]> = vec![b"a/version", b"a/data.pkl", b"a/DATA.PKL"];
        let order = sorted(&names);
        assert_eq!(locate(&names, &order, b"a/Data.Pkl"), Some(2));
        assert_eq!(locate(&names, &order, b"a/VERSION"), Some(0));
        assert_eq!(locate(&names, &order, b"a/missing"), None);
        assert_eq!(locate(&[], &[], b"a"), None);
    }
}
