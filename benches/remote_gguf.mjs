// The peer of `rtenx check` on a remote GGUF file: @huggingface/gguf, which reads the header,
// key-values and tensor infos by byte ranges. Usage: node benches/remote_gguf.mjs URL
import { gguf } from "@huggingface/gguf";

const { metadata, tensorInfos } = await gguf(process.argv[2]);
console.log(`${tensorInfos.length} tensors, ${Object.keys(metadata).length} keys`);
