//! What the paths of a command line name, for the commands that take many (`check`, `sbom`):
//! files opened as named, models a folder scan finds, models of a remote repository; and the
//! threads that share them out.

use rtenx::formats::scan;
use rtenx::source::{ModelFile, OpenError};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Opens the model file named `path`: a remote one (`hf://`, `https://`) by byte ranges,
/// a local one mapped.
pub fn open_named(path: &Path) -> Result<ModelFile, OpenError> {
    let Some(remote) = path.to_str().filter(|p| rtenx::source::names_remote(p)) else {
        return rtenx::source::ModelFile::open(path);
    };
    #[cfg(all(unix, feature = "remote"))]
    {
        remote_budgets()?;
        rtenx::remote::open(remote)
    }
    #[cfg(not(all(unix, feature = "remote")))]
    Err(rtenx::OpenError::Remote {
        url: remote.to_owned(),
        cause: "this rtenx reads no remote files (they need the `remote` feature, on Unix)"
            .to_owned(),
    })
}

/// A model of a remote repository: the path it is shown by, its path in the repository,
/// and how it is opened.
pub struct RemoteModel {
    pub shown: PathBuf,
    pub path: String,
    pub open: Box<dyn FnOnce() -> Result<rtenx::source::ModelFile, rtenx::OpenError> + Send>,
}

/// The model files of the remote repository `path` names (`hf://ORG/REPO[@REVISION]`, the
/// Hub's URL of it), as a check of a local copy of it would find them; `None` if `path`
/// names no remote repository.
pub fn remote_models(path: &Path) -> Option<Result<Vec<RemoteModel>, rtenx::OpenError>> {
    let given = path.to_str().filter(|p| rtenx::source::names_remote(p))?;
    #[cfg(all(unix, feature = "remote"))]
    {
        if !rtenx::remote::names_repository(given) {
            return None;
        }
        let listed = || {
            remote_budgets()?;
            let repo = rtenx::remote::repository(given)?;
            let models = repo.models().map_err(|cause| rtenx::OpenError::Remote {
                url: given.to_owned(),
                cause,
            })?;
            let open = |model: String| {
                let repo = repo.clone();
                let open = move || repo.open(&model);
                Box::new(open) as Box<dyn FnOnce() -> _ + Send>
            };
            Ok(models
                .into_iter()
                .map(|model| RemoteModel {
                    shown: PathBuf::from(repo.shown(&model)),
                    path: model.clone(),
                    open: open(model),
                })
                .collect())
        };
        Some(listed())
    }
    #[cfg(not(all(unix, feature = "remote")))]
    {
        let _ = given;
        None
    }
}

/// Sets the budgets of remote files from `RTENX_REMOTE_BUDGET` (a size, such as 256MiB:
/// the bytes fetched of one file; a run may fetch 16 times that, and at least 1 GiB), once.
#[cfg(all(unix, feature = "remote"))]
pub fn remote_budgets() -> Result<(), rtenx::OpenError> {
    static SET: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    let set = SET.get_or_init(|| {
        let Ok(size) = std::env::var("RTENX_REMOTE_BUDGET") else {
            return Ok(());
        };
        let file = super::config::parse_size(&size)?;
        let defaults = rtenx::remote::Budgets::DEFAULT;
        let run = file.saturating_mul(16).max(defaults.run);
        rtenx::remote::set_budgets(rtenx::remote::Budgets {
            file,
            run,
            ..defaults
        });
        Ok(())
    });
    set.clone().map_err(|cause| rtenx::OpenError::Remote {
        url: "RTENX_REMOTE_BUDGET".to_owned(),
        cause,
    })
}

/// A file to check. One named on the command line is opened by its path, following a
/// symlink, since the user named it; one a folder scan found is opened from the folder
/// following none, and only if it is still the file the scan saw.
pub enum Target {
    Named(PathBuf),
    Found(scan::Scanned),
    /// A model of a remote repository, opened by its path there.
    Remote(RemoteModel),
}

impl Target {
    /// The path, and the file opened and mapped.
    pub fn open(self) -> (PathBuf, Result<ModelFile, OpenError>) {
        match self {
            Target::Named(path) => {
                let file = open_named(&path);
                (path, file)
            }
            Target::Found(found) => {
                let file = found.open();
                (found.path, file)
            }
            Target::Remote(model) => {
                let file = (model.open)();
                (model.shown, file)
            }
        }
    }
}

/// The files a scan of the folder `path` finds; entries it cannot read are reported on
/// standard error, and make the second value true.
pub fn scan_folder(path: &Path) -> (Vec<scan::Scanned>, bool) {
    let found = scan::models_in(path);
    for error in &found.errors {
        super::complain(format_args!("cannot read {error}"));
    }
    (found.files, !found.errors.is_empty())
}

/// Threads for checking files: one per core.
pub fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// `f` applied to every item on up to `workers` threads, with the results in input order.
pub fn parallel_map<T: Send, R: Send>(
    items: Vec<T>,
    workers: usize,
    f: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    let workers = workers.clamp(1, items.len().max(1));
    if workers == 1 {
        return items.into_iter().map(f).collect();
    }
    let queue = Mutex::new(items.into_iter().enumerate());
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                        let Some((index, item)) = next else {
                            return mine;
                        };
                        mine.push((index, f(item)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    done.sort_unstable_by_key(|&(index, _)| index);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::parallel_map;

    #[test]
    fn parallel_map_keeps_input_order() {
        let items: Vec<u64> = (0..200).collect();
        // Uneven work, so that threads finish out of order.
        let slow_square = |i: u64| {
            std::thread::sleep(std::time::Duration::from_micros((i * 7919) % 300));
            i * i
        };
        let expected: Vec<u64> = items.iter().map(|i| i * i).collect();
        for workers in [1, 2, 3, 8, 500] {
            assert_eq!(parallel_map(items.clone(), workers, slow_square), expected);
        }
        assert!(parallel_map(Vec::<u64>::new(), 4, slow_square).is_empty());
    }
}
