//! The browser without a terminal: state changes from actions, and every view drawn on
//! ratatui's TestBackend from real fixtures (insta snapshots), including key sequences.

mod common;

use base64::Engine as _;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use rtenx::inventory::NodeKind;
use rtenx::tui::component::Component;
use rtenx::tui::keys::{self, Action};
use rtenx::tui::tabs::graph::{Link, Row};
use rtenx::tui::tabs::tensors::{StatsView, TensorColumn};
use rtenx::tui::{App, Tab, Theme};

/// Fixtures are opened by relative path (cargo runs tests from the package root), so the
/// screens do not depend on where the repository is checked out.
fn app(fixture: &str, tab: Tab) -> App {
    let path = std::path::Path::new(".")
        .join("tests/fixtures")
        .join(fixture);
    App::new(rtenx::analyze(&path).unwrap(), tab)
}

/// Presses keys as the event loop would.
fn press(app: &mut App, keys: &str) {
    for c in keys.chars() {
        let code = match c {
            '\n' => KeyCode::Enter,
            '\x1b' => KeyCode::Esc,
            '\x08' => KeyCode::Backspace,
            c => KeyCode::Char(c),
        };
        app.key(KeyEvent::new(code, KeyModifiers::NONE));
    }
}

/// The Graph tab's text filter.
fn graph_filter(app: &App) -> &str {
    app.tabs.graph.filter().map_or("", |f| f.text())
}

/// The screen as text, 100×30, without colour.
fn screen(app: &mut App) -> String {
    screen_of(app, 100, 30)
}

/// The screen as text at `width`×`height`, without colour.
fn screen_of(app: &mut App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|f| rtenx::tui::draw(f, app, Theme { color: false }))
        .unwrap();
    let buffer = terminal.backend().buffer();
    (0..buffer.area.height)
        .map(|y| {
            (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
                .trim_end()
                .to_owned()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_view_renders_on_a_real_fixture() {
    for tab in Tab::ALL {
        let mut a = app("rten/subgraphs.rten", tab);
        insta::assert_snapshot!(
            format!("view_{}", tab.title().to_lowercase()),
            screen(&mut a)
        );
    }
}

#[test]
fn onnx_with_external_data_renders_in_the_same_views() {
    let mut a = app("onnx/external_one_file/model.onnx", Tab::Layout);
    insta::assert_snapshot!("onnx_layout", screen(&mut a));
    press(&mut a, "5");
    insta::assert_snapshot!("onnx_tensors", screen(&mut a));
}

#[test]
fn executorch_program_with_a_delegate_renders_in_the_same_views() {
    let mut a = app("executorch/xnnpack_external/model.pte", Tab::Overview);
    insta::assert_snapshot!("executorch_overview", screen(&mut a));
    press(&mut a, "2");
    insta::assert_snapshot!("executorch_layout", screen(&mut a));
    press(&mut a, "3jj");
    insta::assert_snapshot!("executorch_delegate_node", screen(&mut a));
}

#[test]
fn an_empty_list_says_so_and_the_key_bar_fits_the_width() {
    let mut a = app("executorch/mlp.pte", Tab::Findings);
    assert!(screen(&mut a).contains("no findings"));
    for width in [40, 60, 80, 120] {
        let shown = screen_of(&mut a, width, 20);
        let bar = shown.lines().last().unwrap();
        assert!(bar.ends_with("? help"), "{width} columns: {bar:?}");
        assert!(bar.chars().count() <= usize::from(width));
    }
}

#[test]
fn y_copies_the_selected_name_and_says_so_once() {
    let mut a = app("executorch/mlp.pte", Tab::Tensors);
    press(&mut a, "y");
    let name = a.copied.clone().expect("a tensor name");
    assert!(name.starts_with("forward.%"), "{name}");
    let bar = screen(&mut a).lines().last().unwrap().to_owned();
    assert_eq!(bar.trim(), format!("copied {name}"));
    assert!(!screen(&mut a).lines().last().unwrap().contains("copied"));
    press(&mut a, "4y");
    assert_eq!(a.copied.as_deref(), Some("aten::addmm.out"));
}

/// A name that runs a command if pasted raw into a shell: it ends a bracketed paste and
/// holds newlines, then a C1 CSI, a right-to-left override, a zero-width space, a line
/// separator and a tag character.
const PASTE_BOMB: &str = "w\x1b[201~\r\ncurl x|sh\n\u{9b}2J\u{202e}\u{200b}\u{2028}\u{e0041}";

/// An ONNX model whose node, operator type and initializer are all named [`PASTE_BOMB`]; with
/// `scoped`, the node is `/PASTE_BOMB/op`, in a scope of that name.
fn paste_bomb_model(scoped: bool) -> rtenx::source::ModelFile {
    use prost::Message;
    use rtenx::formats::onnx::proto::{GraphProto, ModelProto, NodeProto, TensorProto};
    let bomb = bytes::Bytes::from_static(PASTE_BOMB.as_bytes());
    let tensor = TensorProto {
        dims: vec![1],
        data_type: Some(1),
        name: Some(bomb.clone()),
        raw_data: Some(vec![0; 4].into()),
        ..Default::default()
    };
    let name = match scoped {
        true => bytes::Bytes::from(format!("/{PASTE_BOMB}/op")),
        false => bomb.clone(),
    };
    let node = NodeProto {
        name: Some(name),
        op_type: Some(bomb.clone()),
        input: vec![bomb.clone()],
        output: vec!["y".into()],
        ..Default::default()
    };
    let graph = GraphProto {
        node: vec![node.encode_to_vec().into()],
        initializer: vec![tensor.encode_to_vec().into()],
        ..Default::default()
    };
    let bytes = ModelProto::with_graph(&graph, 21).encode_to_vec();
    rtenx::source::ModelFile::in_memory("bomb.onnx", bytes)
}

#[test]
fn y_copies_a_hostile_name_escaped_from_every_tab() {
    let cases = [
        (false, Tab::Graph, ""),
        (false, Tab::Graph, "a/201\n"),
        (false, Tab::Graph, "v"),
        (false, Tab::Operators, ""),
        (false, Tab::Tensors, ""),
        (false, Tab::Findings, "/201\n"),
        (false, Tab::Sizes, "G"),
        (true, Tab::Graph, ""),
        (true, Tab::Graph, "j"),
        (true, Tab::Graph, "v"),
    ];
    for (scoped, tab, keys) in cases {
        let file = paste_bomb_model(scoped);
        let mut a = App::new(rtenx::analyze_file(&file), tab);
        assert_eq!(
            a.tabs.graph.scope_tree().is_some(),
            scoped,
            "the tree opens if scoped"
        );
        press(&mut a, keys);
        let what = format!("{tab:?} after {keys:?}, scoped: {scoped}");
        let shown = screen(&mut a);
        let raw = shown
            .lines()
            .any(|l| l.contains(rtenx::escape::needs_escape));
        assert!(!raw, "{what}: {shown}");
        press(&mut a, "y");
        let copied = a
            .copied
            .clone()
            .unwrap_or_else(|| panic!("{what}: nothing"));
        assert!(
            copied.contains("\\u{1b}[201~\\u{d}\\u{a}"),
            "{what}: {copied}"
        );
        let sequence = rtenx::tui::clipboard::osc52(&copied);
        let payload = sequence
            .strip_prefix("\x1b]52;c;")
            .and_then(|s| s.strip_suffix('\x07'))
            .unwrap();
        let pasted = base64::engine::general_purpose::STANDARD
            .decode(payload)
            .unwrap();
        let pasted = String::from_utf8(pasted).unwrap();
        // ESC, CR, LF, DEL and C1 controls are all `is_control`.
        assert!(!pasted.contains(char::is_control), "{what}: {pasted:?}");
        assert!(
            !pasted.contains(rtenx::escape::needs_escape),
            "{what}: {pasted:?}"
        );
        assert_eq!(pasted, *copied, "{what}");
    }
}

#[test]
fn enter_follows_a_link_and_back_returns() {
    let mut a = app("rten/subgraphs.rten", Tab::Graph);
    press(&mut a, "/relu\n");
    assert_eq!(a.tabs.graph.rows().len(), 1, "the filter keeps only relu");
    let relu = a.tabs.graph.selected_node().unwrap();
    press(&mut a, "\n"); // Enter on the first link: its input.
    assert_eq!(graph_filter(&a), "", "jumping clears the filter");
    assert_ne!(a.tabs.graph.selected_node(), Some(relu));
    press(&mut a, "b");
    assert_eq!(
        a.tabs.graph.selected_node(),
        Some(relu),
        "back returns to relu"
    );
}

#[test]
fn subgraphs_can_be_entered_and_left() {
    let mut a = app("rten/subgraphs.rten", Tab::Graph);
    press(&mut a, "/if\nj"); // rows: the value "y_if", then the If operator
    assert_eq!(a.tabs.graph.selected_node(), Some(8), "the If operator");
    let links = a.tabs.graph.links(&a.analysis.inventory);
    let sub = links
        .iter()
        .position(|l| matches!(l, Link::Graph(_)))
        .expect("If has subgraphs");
    for _ in 0..sub {
        press(&mut a, "l");
    }
    press(&mut a, "\n");
    assert_eq!(a.tabs.graph.graph(), 1, "entered the then-branch");
    insta::assert_snapshot!("subgraph_entered", screen(&mut a));
    press(&mut a, "b");
    assert_eq!(a.tabs.graph.graph(), 0);
}

#[test]
fn operators_filter_the_graph_and_escape_clears() {
    let mut a = app("rten/convnet.rten", Tab::Operators);
    press(&mut a, "\n");
    assert_eq!(a.tab, Tab::Graph);
    let op = a
        .tabs
        .graph
        .op_filter()
        .expect("an operator filter")
        .to_owned();
    assert!(!a.tabs.graph.rows().is_empty());
    press(&mut a, "\x1b");
    assert_eq!(a.tabs.graph.op_filter(), None);
    assert!(a.tabs.graph.rows().len() > 1, "{op} filter cleared");
    press(&mut a, "\x1b");
    assert!(a.quit, "Esc without a filter quits");
}

#[test]
fn tensors_sort_by_bytes_descending_puts_the_biggest_first() {
    let mut a = app("rten/convnet.rten", Tab::Tensors);
    press(&mut a, "s"); // file order -> bytes, largest first
    assert_eq!(a.tabs.tensors.sort().column, TensorColumn::Bytes);
    let t = &a.analysis.inventory.tensors;
    let biggest = t.iter().map(|t| t.byte_size).max().unwrap();
    assert_eq!(t[a.tabs.tensors.rows()[0]].byte_size, biggest);
    insta::assert_snapshot!("tensors_by_bytes", screen(&mut a));
}

#[test]
fn findings_jump_to_the_node_at_fault() {
    let path = std::path::Path::new(".").join("tests/fixtures/rten/bad/RT017-forward-input.rten");
    let mut a = App::new(rtenx::analyze(&path).unwrap(), Tab::Findings);
    insta::assert_snapshot!("findings_rt017", screen(&mut a));
    press(&mut a, "\n");
    assert_eq!(a.tab, Tab::Graph);
    assert_eq!(a.tabs.graph.selected_node(), Some(17), "the Relu at fault");
}

#[test]
fn help_lists_the_bindings_and_closes() {
    let mut a = app("rten/mlp.rten", Tab::Overview);
    press(&mut a, "?");
    let s = screen(&mut a);
    for b in keys::BINDINGS.iter().filter(|b| !b.label.is_empty()) {
        assert!(s.contains(b.help), "help lacks {}", b.help);
    }
    assert!(
        s.contains("op:Conv") && s.contains("group>1"),
        "the search terms: {s}"
    );
    press(&mut a, "\x1b");
    assert!(!a.help && !a.quit);
}

#[test]
fn small_terminals_and_empty_lists_do_not_break() {
    let mut a = app("rten/bad/RX012-empty-graph.rten", Tab::Graph);
    for (w, h) in [(80, 24), (20, 5), (1, 1)] {
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        for tab in Tab::ALL {
            a.apply(Action::Tab(tab as usize));
            terminal
                .draw(|f| rtenx::tui::draw(f, &mut a, Theme { color: true }))
                .unwrap();
        }
    }
}

#[test]
fn control_characters_in_names_are_escaped_on_screen() {
    let bytes = common::mlp_with_escape_in_a_name();
    let file = rtenx::source::ModelFile::in_memory("esc.rten", bytes);
    let mut a = App::new(rtenx::analyze_file(&file), Tab::Graph);
    for keys in ["", "a", "v"] {
        press(&mut a, keys); // the operator list, every node, the neighbourhood
        let s = screen(&mut a);
        assert!(!s.contains('\x1b') && s.contains("\\u{1b}"), "{s}");
    }
}

#[test]
fn tensor_statistics_run_in_the_background_and_match_the_data() {
    let mut a = app("rten/mlp.rten", Tab::Tensors);
    // Pick the first external f32 tensor and compute its statistics by hand.
    let row = a
        .tabs
        .tensors
        .rows()
        .iter()
        .position(|&t| {
            a.analysis.inventory.tensors[t].storage == rtenx::inventory::Storage::External
        })
        .unwrap();
    for _ in 0..row {
        press(&mut a, "j");
    }
    let id = a.tabs.tensors.selected_tensor().unwrap();
    let bytes = a
        .tabs
        .tensors
        .tensor_bytes(&a.analysis.inventory, id)
        .unwrap();
    let values: Vec<f64> = bytes
        .chunks_exact(4)
        .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
        .collect();
    let max = values.iter().copied().fold(f64::MIN, f64::max);
    press(&mut a, "\n");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while a.busy() && std::time::Instant::now() < deadline {
        a.poll();
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    a.poll();
    match a.tabs.tensors.stats() {
        StatsView::Done {
            tensor,
            result: Ok(f),
        } => {
            assert_eq!(*tensor, id);
            assert_eq!(f.stats.count as usize, values.len());
            assert_eq!(f.stats.max, Some(max));
            let h = f.histogram.as_ref().expect("f32 values have a histogram");
            assert_eq!(h.bins.iter().sum::<u64>() as usize, values.len());
            assert_eq!(h.high, max);
        }
        other => panic!("statistics did not finish: {other:?}"),
    }
    let s = screen(&mut a);
    assert!(s.contains("min ") && s.contains("std "), "{s}");
    assert!(s.contains('█'), "the histogram's fullest bin: {s}");
}

#[test]
fn the_filter_works_in_every_list() {
    let path = std::path::Path::new(".")
        .join("tests/fixtures/rten/bad/RT006-tensor-data-inside-model.rten");
    let mut a = App::new(rtenx::analyze(&path).unwrap(), Tab::Findings);
    assert_eq!(a.tabs.findings.rows().len(), 2);
    press(&mut a, "/rx002\n");
    assert_eq!(a.tabs.findings.rows().len(), 1, "filtered by code");
    press(&mut a, "\x1b4/mat");
    assert_eq!(a.tab, Tab::Operators);
    let ops: Vec<&str> = a.tabs.operators.rows().collect();
    assert_eq!(ops, ["MatMul"]);
    press(&mut a, "\n\n"); // end typing, then Enter: show MatMul nodes in the Graph view
    assert_eq!(
        (a.tab, a.tabs.graph.op_filter(), graph_filter(&a)),
        (Tab::Graph, Some("MatMul"), "")
    );
}

#[test]
fn tensors_sort_by_every_column() {
    let mut a = app("rten/convnet.rten", Tab::Tensors);
    let mut seen = Vec::new();
    for _ in 0..9 {
        seen.push(a.tabs.tensors.sort().column);
        press(&mut a, "s");
        assert_eq!(
            a.tabs.tensors.rows().len(),
            a.analysis.inventory.tensors.len()
        );
    }
    assert_eq!(
        a.tabs.tensors.sort().column,
        seen[0],
        "s cycles back after every column"
    );
    seen.dedup();
    assert_eq!(seen.len(), 9);
}

#[test]
fn overlapping_sections_are_marked_in_the_byte_map() {
    let path = std::path::Path::new(".")
        .join("tests/fixtures/rten/bad/RT006-tensor-data-inside-model.rten");
    let mut a = App::new(rtenx::analyze(&path).unwrap(), Tab::Layout);
    let s = screen(&mut a);
    let map = s.lines().nth(2).unwrap();
    assert!(
        map.contains('X'),
        "tensor data inside the model data is marked: {map}"
    );
    insta::assert_snapshot!("layout_overlap", s);
}

#[test]
fn overlapping_tensors_are_marked_in_the_byte_map() {
    // B [2048,2176) lies inside W [0,4096) in weights.data: the middle of its bar.
    let mut a = app("onnx/bad/RX009-overlap/model.onnx", Tab::Layout);
    let s = screen(&mut a);
    let data_bar = s.lines().nth(3).unwrap();
    let marks: Vec<usize> = data_bar.match_indices('X').map(|(i, _)| i).collect();
    assert!(!marks.is_empty(), "{data_bar}");
    let width = data_bar.trim_end_matches('│').len();
    assert!(
        marks.iter().all(|&i| i > width / 3 && i < 2 * width / 3),
        "X only where B is: {data_bar}"
    );
    assert!(!s.lines().nth(2).unwrap().contains('X'), "{s}");
}

#[test]
fn many_data_files_leave_room_for_the_sections() {
    use rtenx::inventory::{ByteRange, FileEntry, FileRole, Section, SectionKind};
    let mut analysis = rtenx::analyze(std::path::Path::new(
        "tests/fixtures/onnx/external_per_tensor/model.onnx",
    ))
    .unwrap();
    let inv = &mut analysis.inventory;
    for i in 0..20_000 {
        inv.sections.push(Section {
            file: inv.files.len(),
            kind: SectionKind::ExternalData,
            range: ByteRange::between(0, 64),
        });
        inv.files.push(FileEntry {
            path: format!("w{i}.data").into(),
            size: Some(64),
            role: FileRole::ExternalData,
            identity: None,
        });
    }
    let files = inv.files.len();
    let mut a = App::new(analysis, Tab::Layout);
    let s = screen(&mut a);
    let more = format!("… and {} more files", files - 8);
    assert!(s.contains(&more), "{s}");
    assert!(s.contains("sections"), "{s}");
}

#[test]
fn findings_jump_to_the_tensor_or_section_at_fault() {
    let mut a = app("onnx/bad/RX009-overlap/model.onnx", Tab::Tensors);
    press(&mut a, "/w\n"); // hides B
    press(&mut a, "6\n"); // the first finding: OX023 on tensor B
    assert_eq!(a.tab, Tab::Tensors);
    let b = a.tabs.tensors.selected_tensor().unwrap();
    assert_eq!(a.analysis.inventory.tensors[b].name.display(), "B");
    assert_eq!(
        a.tabs.tensors.filter().unwrap().text(),
        "",
        "filter cleared"
    );

    let path = std::path::Path::new(".")
        .join("tests/fixtures/rten/bad/RT006-tensor-data-inside-model.rten");
    let mut a = App::new(rtenx::analyze(&path).unwrap(), Tab::Findings);
    press(&mut a, "j\n"); // RX002 on the tensor data section
    assert_eq!(a.tab, Tab::Layout);
    let s = screen(&mut a);
    assert!(
        s.contains("tensor data in RT006"),
        "the section is selected: {s}"
    );
}

/// A finding about an import jumps to it in the Imports tab, clearing that tab's filter. The
/// pickle reader does not attach imports to its findings yet, so the finding is made here.
#[test]
fn findings_jump_to_the_import_at_fault() {
    use rtenx::check::{Finding, Item, Place};
    let path = std::path::Path::new(".").join("tests/fixtures/pickle/bad/PK001-getattr-chain.pkl");
    let mut analysis = rtenx::analyze(&path).unwrap();
    let imports = &analysis.inventory.imports;
    let import = (imports.iter())
        .position(|i| i.name.display() == "builtins.__import__")
        .expect("the fixture imports builtins.__import__");
    let rule = analysis.findings[0].rule;
    let place = Place::on(Item::Import { import });
    analysis.findings = vec![Finding::new(rule, place, "made for the test")];
    let mut a = App::new(analysis, Tab::Imports);
    press(
        &mut a,
        "/getattr
",
    );
    assert_eq!(a.tabs.imports.rows().len(), 1);
    press(
        &mut a, "6
",
    );
    assert_eq!(a.tab, Tab::Imports);
    assert_eq!(
        a.tabs.imports.rows().len(),
        a.analysis.inventory.imports.len()
    );
    assert_eq!(a.tabs.imports.selected_import(), Some(import));
    assert_eq!(
        a.tabs.imports.filter().unwrap().text(),
        "",
        "filter cleared"
    );
}

#[test]
fn each_tab_keeps_its_own_filter() {
    let mut a = app("rten/subgraphs.rten", Tab::Graph);
    press(&mut a, "/relu\n5");
    let tensors = a.analysis.inventory.tensors.len();
    assert_eq!(a.tabs.tensors.rows().len(), tensors, "Tensors unfiltered");
    press(&mut a, "/then\n");
    assert_eq!(a.tabs.tensors.rows().len(), 1);
    press(&mut a, "3");
    assert_eq!(a.tabs.graph.rows().len(), 1, "Graph still filtered by relu");
    assert_eq!(graph_filter(&a), "relu");
    press(&mut a, "1\x1b");
    assert!(a.quit, "Esc quits where no filter hides rows");
}

#[test]
fn sorting_and_filtering_after_scrolling_keep_the_selection_visible() {
    let mut a = app("rten/convnet.rten", Tab::Tensors);
    let mut terminal = Terminal::new(TestBackend::new(100, 16)).unwrap();
    let mut draw = |a: &mut App| {
        terminal
            .draw(|f| rtenx::tui::draw(f, a, Theme { color: false }))
            .unwrap();
        format!("{:?}", terminal.backend().buffer())
    };
    press(&mut a, "GG");
    draw(&mut a);
    press(&mut a, "s"); // the list is scrolled: rows are sorted again
    let id = a.tabs.tensors.selected_tensor().unwrap();
    let name = a.analysis.inventory.tensors[id].name.display().into_owned();
    assert!(draw(&mut a).contains(&name), "{name} stays in view");
    press(&mut a, "/e\x08");
    draw(&mut a);
}

#[test]
fn the_overview_says_what_the_summary_says() {
    for fixture in [
        "rten/subgraphs.rten",
        "rten/bad/RT006-tensor-data-inside-model.rten",
        "onnx/external_one_file/model.onnx",
    ] {
        let mut a = app(fixture, Tab::Overview);
        let mut summary = Vec::new();
        rtenx::summary::write(&mut summary, &a.analysis).unwrap();
        let summary: Vec<&str> = std::str::from_utf8(&summary)
            .unwrap()
            .lines()
            .map(str::trim_end)
            .collect();
        let mut terminal = Terminal::new(TestBackend::new(160, 200)).unwrap();
        terminal
            .draw(|f| rtenx::tui::draw(f, &mut a, Theme { color: false }))
            .unwrap();
        let buffer = terminal.backend().buffer();
        let overview: Vec<String> = (2..buffer.area.height - 2)
            .map(|y| {
                (1..buffer.area.width - 1)
                    .map(|x| buffer[(x, y)].symbol())
                    .collect::<String>()
                    .trim_end()
                    .to_owned()
            })
            .collect();
        let overview = overview.join("\n");
        assert_eq!(overview.trim_end(), summary.join("\n"), "{fixture}");
    }
}

/// After the browser has read a model, its data file is replaced by a symlink to a file
/// outside the folder, then by another file: the Tensors tab shows neither (issue 11: an
/// `/etc/passwd` line was seen in the hex dump).
#[cfg(unix)]
#[test]
fn tensor_bytes_come_only_from_the_files_that_were_checked() {
    let root = tempfile::tempdir().unwrap();
    let model = root.path().join("m");
    std::fs::create_dir(&model).unwrap();
    for name in ["model.onnx", "weights.data"] {
        let from = common::fixtures().join("onnx/external_one_file").join(name);
        std::fs::copy(from, model.join(name)).unwrap();
    }
    let data = model.join("weights.data");
    let outside = root.path().join("secret");
    std::fs::copy(&data, &outside).unwrap();
    let mut a = App::new(
        rtenx::analyze(&model.join("model.onnx")).unwrap(),
        Tab::Tensors,
    );
    let inv = &a.analysis.inventory;
    let id = (0..inv.tensors.len())
        .find(|&t| inv.tensors[t].storage == rtenx::inventory::Storage::External)
        .unwrap();
    std::fs::remove_file(&data).unwrap();
    std::os::unix::fs::symlink(&outside, &data).unwrap();
    let via_link = a.tabs.tensors.tensor_bytes(inv, id);
    assert!(via_link.is_err(), "read through the symlink");
    std::fs::remove_file(&data).unwrap();
    std::fs::copy(&outside, &data).unwrap();
    let swapped = a.tabs.tensors.tensor_bytes(inv, id).unwrap_err();
    assert!(
        swapped.contains("changed since it was checked"),
        "{swapped}"
    );
}

/// Polls `app` until its background load is over, for at most a minute.
fn finish_loading(app: &mut App) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while app.loader.as_ref().is_some_and(|l| l.error().is_none()) {
        assert!(std::time::Instant::now() < deadline, "the load never ended");
        app.poll();
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn the_browser_shows_the_file_at_once_and_the_model_once_read() {
    let path = std::path::Path::new("./tests/fixtures/rten/subgraphs.rten");
    let preview = rtenx::preview(path).unwrap();
    // The model is read only once the first frame is drawn.
    let (go, wait) = std::sync::mpsc::channel::<()>();
    let loader = rtenx::tui::loader::Loader::spawn(move || {
        wait.recv().ok();
        rtenx::analyze(path).map_err(|e| e.to_string())
    });
    let mut app = App::loading(preview, Tab::Overview, loader);
    assert!(app.busy());
    let first = screen(&mut app);
    assert!(first.contains("Opening"), "{first}");
    assert!(first.contains("format  rten"), "{first}");
    assert!(first.contains("reading and checking the model"), "{first}");
    go.send(()).unwrap();
    finish_loading(&mut app);
    assert!(app.loader.is_none());
    let loaded = screen(&mut app);
    assert!(!loaded.contains("Opening"), "{loaded}");
    assert!(loaded.contains("rten V2"), "{loaded}");
    press(&mut app, "3");
    assert!(
        screen(&mut app).contains("If"),
        "the Graph tab shows the loaded model"
    );
}

#[test]
fn a_model_that_cannot_be_read_says_why_and_stops_the_clock() {
    let path = std::path::Path::new("./tests/fixtures/rten/subgraphs.rten");
    let preview = rtenx::preview(path).unwrap();
    let loader =
        rtenx::tui::loader::Loader::spawn(|| Err("the file changed while it was read".into()));
    let mut app = App::loading(preview, Tab::Overview, loader);
    finish_loading(&mut app);
    assert!(!app.busy(), "nothing left to wait for");
    let shown = screen(&mut app);
    assert!(
        shown.contains("cannot read the model: the file changed while it was read"),
        "{shown}"
    );
    press(&mut app, "q");
    assert!(app.quit);
}

#[test]
fn the_sizes_view_draws_every_format_and_enter_shows_the_largest_tensor() {
    for (name, fixture) in [
        ("sizes_onnx", "onnx/torch_gpt2/model.onnx"),
        ("sizes_executorch", "executorch/xnnpack_external/model.pte"),
        ("sizes_paddle", "paddle/mlp_legacy/model.pdmodel"),
    ] {
        let mut a = app(fixture, Tab::Sizes);
        insta::assert_snapshot!(name, screen_of(&mut a, 110, 40));
    }
    let mut a = app("onnx/torch_gpt2/model.onnx", Tab::Sizes);
    let largest = a.analysis.inventory.sizes.last().unwrap().clone();
    assert_eq!(largest.title, "of the largest tensors");
    let first = largest.rows[0].clone();
    // The largest tensors come last: go to the bottom, then up to the first of them.
    press(&mut a, "G");
    for _ in 1..largest.rows.len() {
        a.apply(Action::Up);
    }
    a.apply(Action::Copy);
    assert_eq!(a.copied.as_deref(), Some(&*first.label.display()));
    press(&mut a, "\n");
    assert_eq!(a.tab, Tab::Tensors);
    let shown = a.tabs.tensors.selection(&a.analysis);
    assert_eq!(shown.as_deref(), Some(&*first.label.display()));
}

#[test]
fn the_graph_lists_operators_with_what_flows_in_and_out() {
    let mut a = app("rten/convnet.rten", Tab::Graph);
    let inv = &a.analysis.inventory;
    let ops = inv.graphs[0]
        .nodes
        .iter()
        .filter(|n| matches!(n.kind, rtenx::inventory::NodeKind::Operator(_)))
        .count();
    assert_eq!(a.tabs.graph.rows().len(), ops, "one row per operator");
    insta::assert_snapshot!("graph_operators_rten", screen(&mut a));
    press(&mut a, "a");
    assert!(a.tabs.graph.all_nodes());
    assert_eq!(
        a.tabs.graph.rows().len(),
        inv_nodes(&a),
        "a lists every node"
    );
    press(&mut a, "a");
    assert_eq!(a.tabs.graph.rows().len(), ops);
}

fn inv_nodes(a: &App) -> usize {
    a.analysis.inventory.graphs[0].nodes.len()
}

/// Opens the neighbourhood of the first node `query` finds in `fixture`, drawn once so that
/// the arrows know the boxes.
fn neighbourhood(fixture: &str, query: &str) -> App {
    let mut a = app(fixture, Tab::Graph);
    press(&mut a, &format!("/{query}\n"));
    assert!(!a.tabs.graph.rows().is_empty(), "{fixture} has {query}");
    press(&mut a, "v");
    screen(&mut a);
    a
}

#[test]
fn the_neighbourhood_view_renders_on_every_format() {
    for (name, fixture, op) in [
        ("rten", "rten/convnet.rten", "op:BatchNormalization"),
        ("onnx", "onnx/torch_gpt2/model.onnx", "op:Add"),
        (
            "executorch",
            "executorch/xnnpack_external/model.pte",
            "delegate",
        ),
        ("paddle", "paddle/mlp_pir/inference.json", "matmul"),
    ] {
        let mut a = neighbourhood(fixture, op);
        let centre = a.tabs.graph.neighbourhood().expect("the view is open").0;
        assert_eq!(Some(centre), a.tabs.graph.selected_node());
        insta::assert_snapshot!(format!("neighbourhood_{name}"), screen(&mut a));
    }
}

#[test]
fn arrows_move_through_the_neighbourhood_and_enter_recentres() {
    let mut a = neighbourhood("rten/convnet.rten", "op:BatchNormalization");
    let (bn, chosen) = a.tabs.graph.neighbourhood().unwrap();
    assert_eq!(chosen, Some(bn), "the centre is chosen first");
    press(&mut a, "k");
    let pool = a.tabs.graph.neighbourhood().unwrap().1.expect("a producer");
    let inv = &a.analysis.inventory;
    assert_eq!(inv.graphs[0].node(pool).unwrap().name.display(), "pool1");
    press(&mut a, "\n");
    assert_eq!(
        a.tabs.graph.neighbourhood().unwrap().0,
        pool,
        "Enter recentres"
    );
    screen(&mut a);
    press(&mut a, "j");
    let (_, below) = a.tabs.graph.neighbourhood().unwrap();
    assert_eq!(below, Some(bn), "below MaxPool: BatchNormalization again");
    press(&mut a, "kb");
    assert_eq!(a.tabs.graph.neighbourhood().unwrap().0, bn, "b goes back");
    assert_eq!(
        graph_filter(&a),
        "op:BatchNormalization",
        "the search is kept"
    );
    press(&mut a, "v");
    assert_eq!(a.tabs.graph.neighbourhood(), None);
    assert_eq!(a.tabs.graph.selected_node(), Some(bn));
    press(&mut a, "v\x1b");
    assert_eq!(a.tabs.graph.neighbourhood(), None, "Esc closes the view");
    assert_eq!(
        graph_filter(&a),
        "op:BatchNormalization",
        "and keeps the search"
    );
    press(&mut a, "\x1b\x1b");
    assert!(a.quit, "then clears the search, then quits");
}

#[test]
fn subgraphs_are_entered_and_left_from_the_neighbourhood() {
    for fixture in ["rten/subgraphs.rten", "onnx/subgraphs/model.onnx"] {
        let mut a = neighbourhood(fixture, "op:If");
        let if_node = a.tabs.graph.neighbourhood().unwrap().0;
        press(&mut a, "l");
        let s = screen(&mut a);
        assert!(
            s.contains("subgraph"),
            "{fixture}: subgraph boxes beside If\n{s}"
        );
        if fixture.starts_with("rten") {
            insta::assert_snapshot!("neighbourhood_subgraphs", s);
        }
        assert_eq!(
            a.tabs.graph.neighbourhood().unwrap().1,
            None,
            "a subgraph box"
        );
        press(&mut a, "\n");
        let sub = a.tabs.graph.graph();
        assert_ne!(sub, 0, "{fixture}: entered a subgraph");
        let s = screen(&mut a);
        let crumb = format!("› graph {sub}");
        assert!(s.contains("main") && s.contains(&crumb), "breadcrumb:\n{s}");
        if fixture.starts_with("rten") {
            insta::assert_snapshot!("neighbourhood_subgraph_entered", s);
        }
        press(&mut a, "p");
        assert_eq!(a.tabs.graph.graph(), 0, "p leaves the subgraph");
        assert_eq!(a.tabs.graph.neighbourhood().unwrap().0, if_node);
    }
}

#[test]
fn the_search_finds_ops_attributes_types_and_shapes_and_n_steps_through() {
    let mut a = app("rten/convnet.rten", Tab::Graph);
    let op_of = |a: &App, id: u32| {
        let node = a.analysis.inventory.graphs[0].node(id).unwrap();
        match node.kind {
            rtenx::inventory::NodeKind::Operator(op) => op.op_type().to_string(),
            _ => "not an operator".into(),
        }
    };
    press(&mut a, "/op:conv\n");
    let convs = a.tabs.graph.rows().to_vec();
    assert_eq!(convs.len(), 2);
    assert!(convs.iter().all(|&c| op_of(&a, c) == "Conv"));
    assert!(screen(&mut a).contains("· 2 matches"));
    press(&mut a, "n");
    assert_eq!(a.tabs.graph.selected_node(), Some(convs[1]));
    press(&mut a, "n");
    assert_eq!(
        a.tabs.graph.selected_node(),
        Some(convs[0]),
        "n wraps around"
    );
    press(&mut a, "N");
    assert_eq!(a.tabs.graph.selected_node(), Some(convs[1]));
    // conv1 has strides [2, 2] and conv2 [1, 1]: an attribute compared as text.
    press(&mut a, "/ strides=2,2\n");
    assert_eq!(a.tabs.graph.rows(), &convs[..1]);
    press(&mut a, "\x1b/op:conv groups>1\n");
    assert!(a.tabs.graph.rows().is_empty(), "no grouped convolution");
    press(&mut a, "\x1b/shape:*,8,4,4\n");
    let rows = a.tabs.graph.rows().to_vec();
    assert!(
        rows.len() >= 2,
        "MaxPool writes and BatchNormalization reads [N,8,4,4]"
    );
    press(&mut a, "\x1ba/dtype:f32 shape:8\n");
    let inv = &a.analysis.inventory;
    let mut constants = 0;
    for &id in a.tabs.graph.rows() {
        // Constants of that shape, and the operators reading them.
        match inv.graphs[0].node(id).unwrap().kind {
            rtenx::inventory::NodeKind::Constant { tensor } => {
                assert_eq!(inv.tensors[tensor].shape, [8]);
                constants += 1;
            }
            rtenx::inventory::NodeKind::Operator(_) => {}
            other => panic!("no value has the fixed shape [8]: {other:?}"),
        }
    }
    assert!(constants > 0);
    press(&mut a, "\x1b/nope:1\n");
    let s = screen(&mut a);
    assert!(
        s.contains("unknown key nope") && a.tabs.graph.rows().is_empty(),
        "{s}"
    );
}

/// Every model file under `dir` (recursively) of at most 4 MiB.
fn small_models(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let small = entry.metadata().is_ok_and(|m| m.len() <= 4 << 20);
        let model = ["rten", "onnx", "pte", "pdmodel", "json"]
            .iter()
            .any(|e| path.extension().is_some_and(|x| x == *e));
        if path.is_dir() {
            small_models(&path, out);
        } else if small && model {
            out.push(path);
        }
    }
}

#[test]
fn every_fixture_good_or_bad_survives_the_graph_views_and_their_keys() {
    let mut models = Vec::new();
    for format in ["rten", "onnx", "executorch", "paddle"] {
        small_models(&common::fixtures().join(format), &mut models);
    }
    assert!(models.len() > 100, "{} fixtures", models.len());
    let mut terminal = Terminal::new(TestBackend::new(90, 30)).unwrap();
    for path in models {
        let Ok(analysis) = rtenx::analyze(&path) else {
            continue;
        };
        let mut a = App::new(analysis, Tab::Graph);
        // The list, every node, the neighbourhood, its boxes, subgraphs, matches and back.
        for keys in [
            "",
            "a",
            "a",
            "v",
            "k",
            "\n",
            "j",
            "j",
            "l",
            "\n",
            "h",
            "p",
            "n",
            "N",
            "b",
            "/op:x dtype:f32 shape:* a>1 y=z\n",
            "n",
            "\x1b",
            "\x1b",
        ] {
            press(&mut a, keys);
            terminal
                .draw(|f| rtenx::tui::draw(f, &mut a, Theme { color: true }))
                .unwrap();
        }
        let shown = path.display();
        assert_eq!(
            a.tabs.graph.neighbourhood(),
            None,
            "{shown}: Esc closed the view"
        );
        assert_eq!(graph_filter(&a), "", "{shown}: and cleared the search");
    }
}

#[test]
fn a_node_with_a_million_links_is_listed_and_drawn_in_part() {
    use rtenx::inventory::{FileEntry, FileFormat, Graph, NewKind, NewNode, Operator};
    const LINKS: u32 = 1_000_000;
    let node = |kind| NewNode {
        name: "n".into(),
        kind,
        offset: rtenx::inventory::Offset::NONE,
    };
    let op = |inputs: Box<[Option<u32>]>| {
        node(NewKind::Operator(Operator::new(
            "Sum".into(),
            Box::new([]),
            inputs.into_vec(),
            vec![],
        )))
    };
    // Node 0, a value, is read a million times by node 1 and once by each of nodes 2 to 4.
    let mut nodes = vec![node(NewKind::Value(Default::default()))];
    nodes.push(op(vec![Some(0); LINKS as usize].into()));
    nodes.extend((0..3).map(|_| op(Box::new([Some(0)]))));
    let file = FileEntry::model("many.rten", 0);
    let mut inventory = rtenx::inventory::Inventory::new(FileFormat::Read("rten"), "", file);
    inventory.graphs.push(Graph {
        nodes: nodes.into_iter().collect(),
        ..Graph::default()
    });
    let analysis = rtenx::Analysis {
        inventory,
        findings: Vec::new(),
    };
    let mut a = App::new(analysis, Tab::Graph);
    let s = screen(&mut a);
    assert!(s.contains(&format!("n, n, n +{} →", LINKS - 3)), "{s}");
    assert_eq!(a.tabs.graph.links(&a.analysis.inventory).len(), 256);
    let tall = screen_of(&mut a, 200, 700);
    assert!(
        tall.contains(&format!("… and {} more", LINKS - 256)),
        "{tall}"
    );
    press(&mut a, "v");
    let s = screen(&mut a);
    // Above: node 0 once, and a box saying the links past 4,096 were not read. Below: none.
    assert!(s.contains("+0 more") && s.contains("(not all read)"), "{s}");
    press(&mut a, "k\n");
    let s = screen(&mut a);
    assert!(
        s.contains("+") && s.contains("more"),
        "node 0's readers, cut: {s}"
    );
}

/// Weights-only formats: the Graph tab opens on the scope tree of the tensor names (its list
/// view says where to look), Sizes breaks GGUF's quantized types down with their bits per
/// element, and Metadata pages a 1,000-token vocabulary from the file, found by search.
#[test]
fn weights_only_models_browse_by_tensors_sizes_and_metadata() {
    let mut a = app("gguf/llama.gguf", Tab::Graph);
    let graph = screen_of(&mut a, 110, 12);
    assert!(
        graph.contains("from the tensor names") && graph.contains("▸ blk.0"),
        "{graph}"
    );
    press(&mut a, "t");
    let graph = screen_of(&mut a, 110, 12);
    assert!(graph.contains("This gguf file holds no graph."), "{graph}");
    let mut a = app("gguf/llama.gguf", Tab::Sizes);
    insta::assert_snapshot!("sizes_gguf", screen_of(&mut a, 110, 30));
    let mut a = app("gguf/llama.gguf", Tab::Metadata);
    press(&mut a, "/tokens\n\n");
    let first = screen_of(&mut a, 100, 10);
    assert!(
        first.contains("tokenizer.ggml.tokens · 1000 string items"),
        "{first}"
    );
    assert!(first.contains("       0  <unk>"), "{first}");
    press(&mut a, "G");
    let last = screen_of(&mut a, 100, 10);
    assert!(last.contains("     999  "), "{last}");
    assert!(last.contains("1000/1000"), "{last}");
    press(&mut a, "\x1b");
    let list = screen_of(&mut a, 100, 10);
    assert!(list.contains("/tokens"), "{list}");
    let mut a = app(
        "safetensors/hf_repo/model.safetensors.index.json",
        Tab::Sizes,
    );
    insta::assert_snapshot!("sizes_safetensors_sharded", screen_of(&mut a, 110, 30));
}

#[test]
fn what_loading_a_pickle_imports_has_a_tab_of_its_own() {
    let mut a = app("pickle/bad/PK001-build-setstate.pkl", Tab::Imports);
    insta::assert_snapshot!("imports_pickle", screen(&mut a));
    press(&mut a, "j\n");
    assert_eq!(a.tab, Tab::Layout, "Enter shows the import's bytes");
    let mut a = app("pickle/scripted.pt", Tab::Imports);
    press(&mut a, "/code\n");
    assert_eq!(
        a.tabs.imports.rows().len(),
        4,
        "the four TorchScript sources"
    );
    insta::assert_snapshot!("imports_torchscript", screen(&mut a));
}

/// What a user opens a model for comes first: at 120×36, the Overview of a real model of
/// every format shows its main graph's inputs and outputs, its most used operator, its
/// parameters and the findings count, read from the model rather than written here.
#[test]
fn the_overview_shows_inputs_outputs_and_operator_mix_in_a_120_by_36_window() {
    for (name, fixture) in [
        ("rten", "rten/convnet.rten"),
        ("onnx", "onnx/torch_gpt2/model.onnx"),
        ("executorch", "executorch/xnnpack_external/model.pte"),
        ("paddle", "paddle/mlp_pir/inference.json"),
        ("gguf", "gguf/llama.gguf"),
        (
            "safetensors",
            "safetensors/hf_repo/model.safetensors.index.json",
        ),
        ("pytorch", "pickle/state_dict.pt"),
    ] {
        let mut a = app(fixture, Tab::Overview);
        let shown = screen_of(&mut a, 120, 36);
        let inv = &a.analysis.inventory;
        let mut expected = vec!["Parameters".to_owned(), "findings".to_owned()];
        if let Some(g) = inv.graphs.first() {
            let names = g.inputs.iter().chain(&g.outputs);
            let names = names
                .filter_map(|&id| g.node(id))
                .map(|n| n.name.display().into_owned());
            expected.extend(names);
            expected.extend(
                inv.operator_histogram()
                    .first()
                    .map(|(op, _)| op.to_string()),
            );
        }
        for text in &expected {
            assert!(
                shown.contains(text.as_str()),
                "{fixture}: {text:?} on screen:\n{shown}"
            );
        }
        insta::assert_snapshot!(format!("overview_120x36_{name}"), shown);
    }
}

/// The GPT-2 export opens on its scope tree: its modules, as PyTorch named them, with their
/// operators and weights; a search shows only the paths to its matches, and `t` leaves the
/// tree for the list on the operator selected.
#[test]
fn the_graph_opens_on_the_scope_tree_and_a_search_opens_the_path_to_each_match() {
    let mut a = app("onnx/torch_gpt2/model.onnx", Tab::Graph);
    insta::assert_snapshot!("scope_tree_onnx", screen_of(&mut a, 120, 36));
    let view = a.tabs.graph.scope_tree().expect("opens on the tree");
    let tree = view.tree();
    let transformer = (0u32..)
        .zip(&tree.scopes)
        .find(|(_, s)| s.name.as_str() == Some("transformer"));
    let children: Vec<String> = tree
        .children(transformer.expect("lm/transformer").0)
        .iter()
        .map(|&c| tree.scopes[c as usize].name.display().into_owned())
        .collect();
    // GPT2Model's modules: token and position embeddings, the blocks, the final norm (`drop`
    // runs no operator in inference and holds no weight).
    assert_eq!(children, ["wte", "wpe", "h.0", "h.1", "ln_f"]);
    let softmaxes = a.analysis.inventory.operator_histogram();
    let softmaxes = softmaxes
        .iter()
        .find(|(op, _)| *op == "Softmax")
        .map_or(0, |s| s.1);
    press(&mut a, "/op:Softmax\n");
    let view = a.tabs.graph.scope_tree().expect("still the tree");
    let graph = &a.analysis.inventory.graphs[0];
    let rows: Vec<Row> = view.rows().collect();
    let tree = view.tree();
    let mut operators = 0;
    let mut on_paths = std::collections::HashSet::new();
    for &row in &rows {
        if let Row::Operator(n) = row {
            operators += 1;
            let kind = &graph.node(n).unwrap().kind;
            assert!(matches!(kind, NodeKind::Operator(op) if op.op_type() == "Softmax"));
            on_paths.extend(tree.path(tree.scope_of(n)));
        }
    }
    for row in rows {
        if let Row::Scope(s) = row {
            assert!(on_paths.contains(&s), "only scopes on the path to a match");
        }
    }
    assert_eq!(operators, softmaxes);
    let shown = screen_of(&mut a, 120, 36);
    assert!(
        shown.contains("▾ attn") && shown.contains("Softmax"),
        "{shown}"
    );
    insta::assert_snapshot!("scope_tree_search", shown);
    let Some(Row::Operator(selected)) = a.tabs.graph.scope_tree().unwrap().selected() else {
        panic!("the search selects the first match");
    };
    press(&mut a, "t");
    assert!(a.tabs.graph.scope_tree().is_none());
    assert_eq!(a.tabs.graph.selected_node(), Some(selected));
}

/// The Metadata tab holds what each format records about the model: ONNX `metadata_props`
/// and producer fields, ExecuTorch's program header, Paddle's program version; a search
/// finds an entry by its key, and `y` copies `key = value`, escaped.
#[test]
fn the_metadata_tab_shows_every_formats_program_info_searchable_and_copied() {
    for fixture in [
        "onnx/mlp/model.onnx",
        "executorch/xnnpack_external/model.pte",
        "paddle/mlp_pir/inference.json",
    ] {
        let mut a = app(fixture, Tab::Metadata);
        let inv = &a.analysis.inventory;
        let mut keys: Vec<String> = inv
            .metadata
            .iter()
            .map(|m| m.key.display().into_owned())
            .collect();
        keys.extend(inv.properties.iter().map(|p| p.key.clone()));
        assert!(!keys.is_empty(), "{fixture} records something");
        let shown = screen_of(&mut a, 120, 36);
        for key in keys.iter().take(20) {
            assert!(
                shown.contains(key.as_str()),
                "{fixture}: {key} on screen:\n{shown}"
            );
        }
        let last = keys.last().unwrap().clone();
        press(&mut a, &format!("/{last}\n"));
        press(&mut a, "y");
        let copied = a.copied.clone().expect("y copies the entry found");
        assert!(
            copied.starts_with(&format!("{last} = ")),
            "{fixture}: {copied}"
        );
    }
}

/// Sizes by scope at a depth the user chooses: `+` and `-` go one level deeper or shallower,
/// each row a scope that deep (or the tensors in none), the rows adding up to every tensor.
#[test]
fn sizes_by_scope_change_depth_and_still_count_every_tensor() {
    let mut a = app("onnx/torch_gpt2/model.onnx", Tab::Sizes);
    let tensors = a.analysis.inventory.tensors.len();
    for (keys, depth) in [("+", 4), ("--", 2), ("-----", 1)] {
        press(&mut a, keys);
        let shown = screen_of(&mut a, 120, 60);
        let heading = format!("Size by scope, {depth} deep");
        assert!(shown.contains(&heading), "{heading}:\n{shown}");
        let rows: Vec<&str> = shown
            .lines()
            .skip_while(|l| !l.contains(&heading))
            .skip(1)
            .take_while(|l| !l.contains("Size "))
            .collect();
        let mut counted = 0;
        for row in &rows {
            let label = row
                .trim_start_matches('│')
                .split_whitespace()
                .next()
                .unwrap_or("");
            let count = row.rsplit('(').next().and_then(|c| c.split(')').next());
            counted += count.and_then(|c| c.parse::<usize>().ok()).unwrap_or(0);
            if !label.starts_with('(') && !label.contains("more") {
                assert_eq!(label.split('/').count(), depth, "{label} is {depth} deep");
            }
        }
        assert_eq!(counted, tensors, "rows at depth {depth}: {rows:#?}");
    }
}

/// The browser over `tests/fixtures/diff/{shown}`, compared with `other` as `inspect --diff`.
fn compared(shown: &str, other: &str, tab: Tab) -> App {
    let read = |f: &str| rtenx::analyze(&std::path::Path::new("./tests/fixtures/diff").join(f));
    let (shown, other) = (read(shown).unwrap(), read(other).unwrap());
    let diff = rtenx::diff::Diff::against(&shown, &other);
    App::compared(shown, Some(&diff), tab)
}

#[test]
fn a_compared_model_marks_the_changed_operator_and_tensors() {
    let mut a = compared("mlp_a.onnx", "mlp_b.onnx", Tab::Overview);
    insta::assert_snapshot!("diff_overview", screen(&mut a));
    a.apply(Action::Tab(Tab::Graph as usize));
    insta::assert_snapshot!("diff_graph", screen(&mut a));
    press(&mut a, "t");
    let list = screen(&mut a);
    // Relu became Tanh in the middle layer only.
    assert!(
        list.contains("│~     13 Relu           /middle/Relu"),
        "{list}"
    );
    assert!(list.contains("│       9 Relu           /Relu"), "{list}");
    insta::assert_snapshot!("diff_graph_list", list);
    // The neighbourhood of the changed operator carries its mark in its box, and so does the
    // box of the scope that holds it.
    press(&mut a, "/op:Relu middle\nv");
    let boxes = screen(&mut a);
    assert!(boxes.contains("│~ #13 Relu"), "{boxes}");
    press(&mut a, "\x1b\x1bt");
    let (middle, row) = scope_row(&a, "middle");
    select_row(&mut a, row);
    press(&mut a, "v");
    assert_eq!(a.tabs.graph.scope_box().map(|b| b.0), Some(middle));
    let boxes = screen(&mut a);
    assert!(boxes.contains("│~ scope middle"), "{boxes}");
    a.apply(Action::Tab(Tab::Operators as usize));
    insta::assert_snapshot!("diff_operators", screen(&mut a));
    let mut t = compared("ckpt.pt", "ckpt_tuned.safetensors", Tab::Tensors);
    let tensors = screen(&mut t);
    assert!(tensors.contains("│~ fc1.weight"), "{tensors}");
    assert!(tensors.contains("│  fc1.bias"), "{tensors}");
    insta::assert_snapshot!("diff_tensors", tensors);
}

/// An ExecuTorch program with stack traces and Paddle programs with recorded scopes open on
/// the scope tree of their modules, as the files name them.
#[test]
fn programs_that_record_scopes_open_on_the_tree_of_their_modules() {
    let cases = [
        ("executorch/stacktrace/encoder.pte", "executorch_stacktrace"),
        ("paddle/scopes_pir/model.json", "paddle_pir"),
        ("paddle/scopes_static/model.pdmodel", "paddle_static"),
    ];
    for (fixture, name) in cases {
        let mut a = app(fixture, Tab::Graph);
        assert!(
            a.tabs.graph.scope_tree().is_some(),
            "{fixture} opens on the tree"
        );
        insta::assert_snapshot!(format!("scope_tree_{name}"), screen_of(&mut a, 100, 24));
    }
}

/// The scope `name` of `a`'s tree (the first of that name), and the row that shows it.
fn scope_row(a: &App, name: &str) -> (rtenx::inventory::ScopeId, usize) {
    let view = a.tabs.graph.scope_tree().expect("the tree is shown");
    let tree = view.tree();
    let scope = (0u32..)
        .zip(&tree.scopes)
        .find(|(_, s)| s.name.as_str() == Some(name))
        .unwrap_or_else(|| panic!("a scope {name}"))
        .0;
    let row = view.rows().position(|r| r == Row::Scope(scope));
    (scope, row.unwrap_or_else(|| panic!("{name} shown")))
}

/// Node `id` of the main graph of `a`'s model.
fn inv_node(a: &App, id: u32) -> rtenx::inventory::Node<'_> {
    a.analysis.inventory.graphs[0].node(id).unwrap()
}

/// Moves the tree's selection to row `row`, as the keys would.
fn select_row(a: &mut App, row: usize) {
    press(a, "g");
    press(a, &"j".repeat(row));
}

/// `v` on a scope of the PyTorch encoder's tree draws it as one box, with the operators
/// outside that write what it reads above it and those that read what it writes below; `b`
/// returns to the tree at the same row with the same scopes open, and so does Esc.
#[test]
fn a_scope_is_drawn_as_one_box_with_what_flows_in_and_out_and_b_returns_to_the_tree() {
    let mut a = app("onnx/torch_encoder/model.onnx", Tab::Graph);
    let (layers0, row) = scope_row(&a, "layers.0");
    select_row(&mut a, row);
    press(&mut a, "l"); // Open it, so that going back must keep it open.
    let rows: Vec<Row> = a.tabs.graph.scope_tree().unwrap().rows().collect();
    press(&mut a, "v");
    let (scope, edges_in, edges_out) = a.tabs.graph.scope_box().expect("the scope's box");
    assert_eq!(scope, layers0);
    // The block reads the embedding's output twice (the residual and the attention) and
    // writes its own output to the next block's attention and residual.
    assert_eq!((edges_in, edges_out), (2, 2));
    let shown = screen_of(&mut a, 120, 36);
    assert!(
        shown.contains("scope layers.0") && shown.contains("in 2 links ← 1 node"),
        "{shown}"
    );
    insta::assert_snapshot!("neighbourhood_scope", shown);
    let tree = rtenx::inventory::ScopeTree::build(&a.analysis.inventory);
    // Each box around the scope's is an operator (or graph input) outside it.
    press(&mut a, "k");
    let above = a.tabs.graph.neighbourhood().unwrap().1.expect("a producer");
    assert!(!tree.within(tree.scope_of(above), layers0));
    assert!(matches!(inv_node(&a, above).kind, NodeKind::Operator(_)));
    press(&mut a, "jj");
    let below = a.tabs.graph.neighbourhood().unwrap().1.expect("a consumer");
    assert!(!tree.within(tree.scope_of(below), layers0));
    // Enter centres on it; b comes back to the scope's box, b again to the tree.
    press(&mut a, "\n");
    assert_eq!(a.tabs.graph.neighbourhood().unwrap().0, below);
    assert_eq!(a.tabs.graph.scope_box(), None);
    press(&mut a, "b");
    assert_eq!(a.tabs.graph.scope_box().map(|b| b.0), Some(layers0));
    press(&mut a, "b");
    let view = a.tabs.graph.scope_tree().expect("back in the tree");
    assert_eq!(a.tabs.graph.neighbourhood(), None);
    assert_eq!(
        view.rows().collect::<Vec<_>>(),
        rows,
        "the same scopes open"
    );
    assert_eq!(
        view.selected(),
        Some(Row::Scope(layers0)),
        "on the same row"
    );
    // Esc closes the box too, back on the tree, and leaves nothing to go back to there.
    press(&mut a, "v\x1b");
    let view = a.tabs.graph.scope_tree().expect("Esc returns to the tree");
    assert_eq!(view.selected(), Some(Row::Scope(layers0)));
    assert_eq!(a.tabs.graph.neighbourhood(), None);
    // y copies the scope's path from its box.
    press(&mut a, "v");
    screen(&mut a);
    press(&mut a, "y");
    assert_eq!(a.copied.as_deref(), Some("layers.0"));
}

/// Enter on an operator of the tree shows it in the list (the search kept); `b` returns to
/// the tree on that operator, with the same scopes open.
#[test]
fn back_after_enter_from_the_tree_returns_to_the_tree() {
    let mut a = app("onnx/torch_encoder/model.onnx", Tab::Graph);
    let (_, row) = scope_row(&a, "layers.0");
    select_row(&mut a, row);
    press(&mut a, "l");
    let view = a.tabs.graph.scope_tree().unwrap();
    let rows: Vec<Row> = view.rows().collect();
    let (at, op) = (rows.iter().enumerate())
        .find_map(|(i, r)| match r {
            Row::Operator(n) => Some((i, *n)),
            _ => None,
        })
        .expect("layers.0 has operators of its own");
    select_row(&mut a, at);
    press(&mut a, "\n");
    assert!(a.tabs.graph.scope_tree().is_none(), "the list");
    assert_eq!(a.tabs.graph.selected_node(), Some(op));
    press(&mut a, "b");
    let view = a.tabs.graph.scope_tree().expect("b returns to the tree");
    assert_eq!(view.rows().collect::<Vec<_>>(), rows);
    assert_eq!(view.selected(), Some(Row::Operator(op)));
    // From a search: the list keeps it, and the tree comes back searched.
    press(&mut a, "/op:Softmax\n");
    let searched: Vec<Row> = a.tabs.graph.scope_tree().unwrap().rows().collect();
    let Some(Row::Operator(softmax)) = a.tabs.graph.scope_tree().unwrap().selected() else {
        panic!("the search selects the first match");
    };
    press(&mut a, "\n");
    assert_eq!(graph_filter(&a), "op:Softmax", "the list keeps the search");
    assert_eq!(a.tabs.graph.selected_node(), Some(softmax));
    press(&mut a, "b");
    let view = a.tabs.graph.scope_tree().expect("back in the tree");
    assert_eq!(view.rows().collect::<Vec<_>>(), searched);
    assert_eq!(view.selected(), Some(Row::Operator(softmax)));
    // v on an operator of the tree, then b, returns to the tree as well.
    press(&mut a, "vb");
    assert!(a.tabs.graph.scope_tree().is_some());
    assert_eq!(a.tabs.graph.neighbourhood(), None);
}

/// A top-level scope holding a million nodes (a chain of 500,000 operators and their values)
/// is drawn as one box: one link in from the graph input, one out to the graph output, found
/// in one pass over the scope's links (timed in `benches/tui.rs`, `tui/scope-box-1m-nodes`).
#[test]
fn a_scope_of_a_million_nodes_is_drawn_as_one_box() {
    let mut a = App::new(rtenx::synth::chain_in_one_scope(500_000), Tab::Graph);
    let (model, row) = scope_row(&a, "model");
    assert_eq!(row, 0);
    press(&mut a, "v");
    assert_eq!(a.tabs.graph.scope_box(), Some((model, 1, 1)));
    let shown = screen(&mut a);
    assert!(shown.contains("scope model"), "{shown}");
    assert!(shown.contains("500000 ops"), "{shown}");
    assert!(
        shown.contains("in 1 link ← 1 node · out 1 link → 1 node"),
        "{shown}"
    );
    assert!(
        shown.contains("input") && shown.contains("Relu_49_output_0"),
        "{shown}"
    );
    press(&mut a, "b");
    assert!(a.tabs.graph.scope_tree().is_some());
}

/// A safetensors checkpoint's Graph tab is its scope tree from `model.layers.N` names, with
/// tensors, parameters and bytes under each scope; a search by tensor name opens the paths to
/// the matches, Enter on a tensor shows it in the Tensors tab, and y copies its whole name.
#[test]
fn a_checkpoint_without_a_graph_browses_by_its_scope_tree() {
    let mut a = app("hf/llama-sharded/model.safetensors.index.json", Tab::Graph);
    insta::assert_snapshot!("scope_tree_safetensors", screen_of(&mut a, 110, 14));
    press(&mut a, "/q_proj\n");
    let found = screen_of(&mut a, 110, 14);
    assert!(found.contains("2 matches"), "{found}");
    assert_eq!(found.matches("▾ q_proj").count(), 2, "{found}");
    press(&mut a, "y");
    let copied = a.copied.as_deref().map(str::to_owned);
    assert_eq!(
        copied.as_deref(),
        Some("model.layers.0.self_attn.q_proj.weight")
    );
    press(&mut a, "\n");
    assert_eq!(a.tab, Tab::Tensors);
    let tensors = screen_of(&mut a, 110, 14);
    assert!(
        tensors.contains("model.layers.0.self_attn.q_proj.weight"),
        "{tensors}"
    );
}

/// Enter on a metadata entry shows its whole value wrapped to the screen (a GGUF chat
/// template is longer than a line), with its real line breaks, scrollable; Enter goes back.
#[test]
fn a_long_metadata_value_is_read_whole() {
    let mut a = app("gguf/tiny.gguf", Tab::Metadata);
    press(&mut a, "/chat_template\n\n");
    let whole = screen_of(&mut a, 60, 12);
    assert!(
        whole.contains("tokenizer.chat_template · 201 characters"),
        "{whole}"
    );
    assert!(
        whole.contains("{% endif %}"),
        "the end of the value is shown: {whole}"
    );
    press(&mut a, "\n");
    let list = screen_of(&mut a, 60, 12);
    assert!(list.contains("metadata ·"), "{list}");
}

/// The key bar offers `/` only where a search works: not in a paged token list.
#[test]
fn the_key_bar_offers_search_only_where_it_works() {
    let mut a = app("gguf/llama.gguf", Tab::Metadata);
    assert!(screen_of(&mut a, 110, 10).contains("/ filter"));
    press(&mut a, "/tokens\n\n");
    let items = screen_of(&mut a, 110, 10);
    assert!(
        items.contains("string items") && !items.contains("/ filter"),
        "{items}"
    );
}

/// The explanation of a finding scrolls with J and K, from its top for each finding.
#[test]
fn the_explanation_of_a_finding_scrolls() {
    let mut a = app("pickle/bad/PK001-global-os-system.pkl", Tab::Findings);
    let top = screen_of(&mut a, 100, 24);
    assert!(top.contains("J K scroll · line 1 of"), "{top}");
    press(&mut a, "JJJ");
    let scrolled = screen_of(&mut a, 100, 24);
    assert!(scrolled.contains("· line 4 of"), "{scrolled}");
    press(&mut a, "K");
    assert!(screen_of(&mut a, 100, 24).contains("· line 3 of"));
}

/// A model in a signed folder: the Overview shows the signature's status, signer, algorithm,
/// hashing and what it covers, right under the file.
#[test]
fn the_overview_shows_the_signature_under_the_file() {
    let folder = std::path::Path::new("./tests/fixtures/signing/cases/key-p256-safetensors/model");
    let pem = std::fs::read_to_string("tests/fixtures/signing/material/p256.pub.pem").unwrap();
    let key = rtenx::signing::verify::PublicKey::from_pem(&pem).unwrap();
    let trust = rtenx::signing::Trust::Key(key);
    let checked = rtenx::signing::check_model(folder, &folder.join("model.sig"), Some(&trust));
    let mut analysis = rtenx::analyze(&folder.join("model.safetensors")).unwrap();
    analysis.inventory.signature = Some(checked.signature);
    let mut a = App::new(analysis, Tab::Overview);
    let shown = screen_of(&mut a, 120, 36);
    for text in [
        "Signature: verified",
        "key      SHA256:e5c9427f8c8951b3466ebfae9ccd59a488c94daac1948863f91bc3bd2a19f7f9",
        "algo     ECDSA P-256",
        "hashing  files sha256",
        "covers   2 files, 94 bytes",
        "format   model_signing v1.0, Sigstore bundle v0.3",
    ] {
        assert!(shown.contains(text), "{text:?} on screen:\n{shown}");
    }
    insta::assert_snapshot!("overview_120x36_signed", shown);
}

/// What a bundle says of its signer is the signer's to write: escaped on screen.
#[test]
fn a_hostile_certificate_subject_is_escaped_in_the_overview() {
    use rtenx::inventory::signature::{Bundle, Hashing, Signature, Signer, Status};
    let mut analysis =
        rtenx::analyze(std::path::Path::new("./tests/fixtures/rten/mlp.rten")).unwrap();
    analysis.inventory.signature = Some(Signature {
        file: "model\u{1b}[2J.sig".into(),
        path: "model.sig".into(),
        status: Status::IntegrityOnly,
        reason: None,
        bundle: Some(Bundle {
            bundle_version: "0.3".into(),
            format: "v1.0".into(),
            signer: Signer::Certificate {
                subject: "CN=evil\u{1b}[31m\u{202e}gis.exe".into(),
                issuer: "CN=ca\r\nforged: line".into(),
                not_before: "2020-01-01T00:00:00Z".into(),
                not_after: "2099-12-31T00:00:00Z".into(),
            },
            algorithm: None,
            hashing: Hashing {
                method: "files".into(),
                hash_type: "sha256".into(),
                shard_size: None,
            },
            files: 1,
            bytes: 1,
            sha256: "00".repeat(32),
        }),
    });
    let mut a = App::new(analysis, Tab::Overview);
    let shown = screen_of(&mut a, 120, 36);
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{202e}'),
        "{shown}"
    );
    assert!(
        shown.contains(r"subject  CN=evil\u{1b}[31m\u{202e}gis.exe"),
        "{shown}"
    );
    assert!(
        shown.contains(r"issuer   CN=ca\u{d}\u{a}forged: line"),
        "{shown}"
    );
    assert!(shown.contains(r"file     model\u{1b}[2J.sig"), "{shown}");
}
