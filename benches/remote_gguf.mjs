// The peer of `rtenx check` on a remote GGUF file: @huggingface/gguf, which reads the header,
// key-values and tensor infos by byte ranges; with --all, of every part of a split model
// (ggufAllShards, which finds the others by the first one's name and reads them in parallel).
// Usage: node benches/remote_gguf.mjs [--all] URL
import { gguf, ggufAllShards } from "@huggingface/gguf";

const all = process.argv[2] === "--all";
const url = process.argv[all ? 3 : 2];
const parts = all ? (await ggufAllShards(url)).shards : [await gguf(url)];
const tensors = parts.reduce((n, part) => n + part.tensorInfos.length, 0);
console.log(`${parts.length} parts, ${tensors} tensors, ${Object.keys(parts[0].metadata).length} keys`);
