//! Rules of HDF5 files read by the shared reader (codes HD001..): legacy Keras `.h5` models and
//! `.weights.h5` weights. The reference is the HDF5 File Format Specification 3.0 and the HDF5
//! library that h5py 3.14 bundles; `tests/fixtures/keras/verdicts.tsv` records what
//! `keras.saving.load_model` says about each fixture.

crate::rules! {
    group = ("HD", "HDF5");
    /// An HDF5 structure runs past the end of the file.
    ///
    /// ## What it does
    /// Reads the superblock, object headers, heaps, B-tree nodes and messages the reader
    /// needs, and reports the first read of each that the file is too short for, with the
    /// bytes it needs and the bytes left.
    ///
    /// ## Why
    /// The HDF5 library refuses a file cut short ("truncated file", "unable to open file"),
    /// so `h5py.File` and Keras' `load_model` fail on it. A download that stopped early is
    /// the usual cause.
    ///
    /// ## How to fix
    /// Copy or download the file again.
    HDF5_TRUNCATED = ("HD001", "hdf5-truncated", Error);
    /// An HDF5 structure has a bad signature, an unknown version or a field out of range.
    ///
    /// ## What it does
    /// Checks each structure's signature (`OHDR`, `OCHK`, `TREE`, `SNOD`, `HEAP`, `GCOL`) and
    /// version, that addresses lie inside the file, that a message fits its object header,
    /// an attribute's data fits its message, and that ranks, sizes and counts are ones the
    /// format allows.
    ///
    /// ## Why
    /// The HDF5 library refuses such a file or the object in it ("bad object header
    /// version", "incorrect B-tree signature", "unable to read attribute"); a reader that
    /// trusts the fields reads out of bounds.
    ///
    /// ## How to fix
    /// The file is damaged or was made by hand: save the model again with its own tool.
    HDF5_MALFORMED = ("HD002", "hdf5-malformed", Error);
    /// An HDF5 B-tree or continuation chain loops, or groups nest too deep.
    ///
    /// ## What it does
    /// Remembers every object header block and B-tree node it reads, and reports one met
    /// twice; walks groups at most 64 levels deep.
    ///
    /// ## Why
    /// A loop makes a naive reader (and HDF5 tools that follow it) run forever; the HDF5
    /// library's own recursion over nested groups exhausts the stack. Writers never make
    /// either.
    ///
    /// ## How to fix
    /// The file was made by hand to stall its readers; do not load it.
    HDF5_LOOP = ("HD003", "hdf5-loop", Error);
    /// Part of an HDF5 file is stored in a way rtenx does not read.
    ///
    /// ## What it does
    /// Names dense attribute and link storage (fractal heaps, written for many or large
    /// attributes), external and soft links, and chunked datasets (whose bytes lie in chunks,
    /// perhaps compressed), which rtenx lists with their shape and type but does not locate.
    ///
    /// ## Why
    /// What is not read is not checked: a `model_config` in dense storage is not judged for
    /// what loading it runs, though h5py and Keras read it.
    ///
    /// ## How to fix
    /// Nothing, if the file comes from a source you trust; Keras writes compact storage and
    /// contiguous datasets.
    HDF5_NOT_READ = ("HD004", "hdf5-not-read", Warning);
}
