//! A bounds-checked view of FlatBuffer tables, for what the generated code does not give:
//! field presence, field positions, and decoding attribute tables from a field list.
//!
//! Every read is checked, so it is safe even on unverified bytes; on verified bytes the
//! checks simply never fail.

/// A table at `loc` inside `buf`.
#[derive(Clone, Copy)]
pub struct RawTable<'a> {
    buf: &'a [u8],
    loc: usize,
}

fn read<const N: usize>(buf: &[u8], pos: usize) -> Option<[u8; N]> {
    buf.get(pos..pos.checked_add(N)?)?.try_into().ok()
}

impl<'a> RawTable<'a> {
    /// The table at `loc`.
    pub fn new(buf: &'a [u8], loc: usize) -> Self {
        RawTable { buf, loc }
    }

    /// Position of the table in the buffer.
    pub fn loc(&self) -> usize {
        self.loc
    }

    /// The buffer the table is in.
    pub fn buf(&self) -> &'a [u8] {
        self.buf
    }

    /// The root table of `buf`, wherever its root offset points (reads stay checked).
    pub fn root(buf: &'a [u8]) -> Self {
        let loc = read(buf, 0).map_or(0, |b| u32::from_le_bytes(b) as usize);
        RawTable { buf, loc }
    }

    /// Position of the table's vtable and its length in bytes.
    fn vtable(&self) -> Option<(usize, u16)> {
        let soffset = i32::from_le_bytes(read(self.buf, self.loc)?);
        let vtable = i64::try_from(self.loc)
            .ok()?
            .checked_sub(i64::from(soffset))?;
        let vtable = usize::try_from(vtable).ok()?;
        Some((vtable, u16::from_le_bytes(read(self.buf, vtable)?)))
    }

    /// Length of the table's vtable in bytes: 4 plus 2 per field slot.
    pub fn vtable_len(&self) -> Option<u16> {
        Some(self.vtable()?.1)
    }

    /// Position of the field stored at vtable slot `slot`, or `None` if absent.
    pub fn field_pos(&self, slot: u16) -> Option<usize> {
        let (vtable, vtable_len) = self.vtable()?;
        if slot.checked_add(2)? > vtable_len {
            return None;
        }
        let field = u16::from_le_bytes(read(self.buf, vtable.checked_add(usize::from(slot))?)?);
        (field != 0)
            .then(|| self.loc.checked_add(usize::from(field)))
            .flatten()
    }

    /// True if the field at `slot` is present.
    pub fn has(&self, slot: u16) -> bool {
        self.field_pos(slot).is_some()
    }

    /// A scalar field, or `None` if absent or unreadable.
    pub fn scalar<T: Scalar>(&self, slot: u16) -> Option<T> {
        T::read(self.buf, self.field_pos(slot)?)
    }

    /// Follows the offset stored in the field at `slot`.
    fn target(&self, slot: u16) -> Option<usize> {
        let pos = self.field_pos(slot)?;
        let offset = u32::from_le_bytes(read(self.buf, pos)?);
        pos.checked_add(usize::try_from(offset).ok()?)
    }

    /// The sub-table referenced by the field at `slot`.
    pub fn table(&self, slot: u16) -> Option<RawTable<'a>> {
        Some(RawTable::new(self.buf, self.target(slot)?))
    }

    /// The vector at `slot`: position of its first element and its length, checked to fit
    /// in the buffer for elements of `elem_size` bytes.
    pub fn vector(&self, slot: u16, elem_size: usize) -> Option<(usize, usize)> {
        let at = self.target(slot)?;
        let len = usize::try_from(u32::from_le_bytes(read(self.buf, at)?)).ok()?;
        let start = at.checked_add(4)?;
        let end = start.checked_add(len.checked_mul(elem_size)?)?;
        (end <= self.buf.len()).then_some((start, len))
    }

    /// The elements of a scalar vector at `slot`.
    pub fn scalars<T: Scalar>(&self, slot: u16) -> Option<Vec<T>> {
        let (start, len) = self.vector(slot, T::SIZE)?;
        (0..len)
            .map(|i| T::read(self.buf, start + i * T::SIZE))
            .collect()
    }

    /// The string at `slot`, as raw bytes.
    pub fn bytes(&self, slot: u16) -> Option<&'a [u8]> {
        let (start, len) = self.vector(slot, 1)?;
        self.buf.get(start..start + len)
    }
}

/// Little-endian scalars a table field can hold.
pub trait Scalar: Sized {
    /// Size in bytes.
    const SIZE: usize;
    /// Reads one value at `pos`.
    fn read(buf: &[u8], pos: usize) -> Option<Self>;
}

macro_rules! scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn read(buf: &[u8], pos: usize) -> Option<Self> {
                read(buf, pos).map(<$t>::from_le_bytes)
            }
        }
    )*};
}
scalar!(u8, u16, u32, u64, i32, f32);

#[cfg(test)]
mod tests {
    use super::RawTable;

    /// A table at 8 with vtable at 0: fields at slots 4 (u32 at +4) and 6 (absent).
    fn sample() -> Vec<u8> {
        let mut buf = vec![];
        buf.extend(8u16.to_le_bytes()); // vtable length
        buf.extend(8u16.to_le_bytes()); // table inline size
        buf.extend(4u16.to_le_bytes()); // slot 4 -> +4
        buf.extend(0u16.to_le_bytes()); // slot 6 absent
        buf.extend(8i32.to_le_bytes()); // table: soffset to vtable (8 - 8 = 0)
        buf.extend(42u32.to_le_bytes());
        buf
    }

    #[test]
    fn reads_present_fields_and_reports_absent_ones() {
        let buf = sample();
        let t = RawTable::new(&buf, 8);
        assert_eq!(t.scalar::<u32>(4), Some(42));
        assert_eq!(t.field_pos(6), None);
        assert_eq!(t.field_pos(8), None, "slot past the vtable");
    }

    #[test]
    fn hostile_offsets_read_as_absent() {
        let mut buf = sample();
        buf[8..12].copy_from_slice(&i32::MIN.to_le_bytes());
        assert_eq!(RawTable::new(&buf, 8).scalar::<u32>(4), None);
        assert_eq!(RawTable::new(&buf, 1000).scalar::<u32>(4), None);
        let buf = sample();
        assert_eq!(
            RawTable::new(&buf, 8).vector(4, 4),
            None,
            "42 is no valid vector offset"
        );
    }
}
