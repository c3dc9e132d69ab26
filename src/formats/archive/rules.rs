//! Rules of zip archives of no model format (codes ZA001..). The zip rules (ZP) and the pickle
//! machine's (PK) apply too.

crate::rules! {
    group = ("ZA", "Zip archives of pickles");
    /// A member of a zip archive is a pickle.
    ///
    /// ## What it does
    /// Reads every member of a zip archive that no model format claims, and reports each that
    /// is a pickle by content (or an `.npy` of objects, whose data is one), whatever its name.
    /// Its imports are judged like any other pickle's: PK001 names an unsafe one.
    ///
    /// ## Why
    /// A pickle in an archive runs its imports when whoever unpacks the archive loads it.
    /// picklescan, modelscan and ModelAudit read the pickle members of any zip; without this,
    /// such an archive was "a zip archive, not checked", whatever it held.
    ///
    /// ## How to fix
    /// Nothing to fix if the pickles hold only data (their imports are in the safe set);
    /// otherwise do not load them.
    PICKLE_MEMBER = ("ZA001", "pickle-member", Info);
}
