#!/bin/sh
# Copies the committed fixtures into fuzz/corpus/<target>/ as seed corpora. Files are named
# by the SHA-1 of their content, as libFuzzer names the inputs it adds, so running this again
# adds nothing twice. The corpus is not committed (fuzz/.gitignore): it grows with each run.
#
#   rten     tests/fixtures/rten/**/*.rten
#   onnx     tests/fixtures/onnx/**/*.onnx
#   paddle   every file under tests/fixtures/paddle
#   gguf     tests/fixtures/gguf/**/*.gguf
#   safetensors  tests/fixtures/safetensors/**/*.safetensors and *.json
#   detect   every file under tests/fixtures/{rten,onnx,foreign,paddle,executorch,pickle}
#   writers  the rten, onnx and foreign fixtures
#   executorch  tests/fixtures/executorch/**/*.{pte,ptd}
#   pickle   every file under tests/fixtures/pickle but the zips and .npy files
#   pytorch  tests/fixtures/pickle/**/*.{pt,pth,pt2}
#   numpy    tests/fixtures/pickle/**/*.{npy,npz}
#   stack    tests/fixtures/stack/*.{txt,bin}
#   tflite   tests/fixtures/tflite/**/*.tflite
#   signing  tests/fixtures/signing/**/model.sig, the statements their payloads hold, the DER
#            certificates they carry, and the PEM certificates of material/
#   keras    tests/fixtures/keras/**/*.keras
#   litertlm tests/fixtures/litertlm/**/*.litertlm
#   hdf5     tests/fixtures/keras/**/*.h5
set -eu
cd "$(dirname "$0")/.."
fixtures=tests/fixtures

seed() { # seed TARGET FILE...
    target=$1
    shift
    mkdir -p "fuzz/corpus/$target"
    for f in "$@"; do
        cp "$f" "fuzz/corpus/$target/$(sha1sum <"$f" | cut -c1-40)"
    done
}

files() { # files DIR [NAME-PATTERN]: regular files under DIR, if it exists
    [ -d "$1" ] || return 0
    find "$1" -type f -name "${2:-*}" | sort
}

# shellcheck disable=SC2046 # fixture paths have no spaces
seed rten $(files $fixtures/rten '*.rten')
# shellcheck disable=SC2046
seed onnx $(files $fixtures/onnx '*.onnx')
# shellcheck disable=SC2046
seed paddle $(files $fixtures/paddle)
# shellcheck disable=SC2046
seed gguf $(files $fixtures/gguf '*.gguf')
# shellcheck disable=SC2046
seed safetensors $(files $fixtures/safetensors '*.safetensors') $(files $fixtures/safetensors '*.json')
# shellcheck disable=SC2046
seed detect $(files $fixtures/rten) $(files $fixtures/onnx) $(files $fixtures/foreign) \
    $(files $fixtures/paddle) $(files $fixtures/executorch) $(files $fixtures/pickle)
# shellcheck disable=SC2046
seed writers $(files $fixtures/rten '*.rten') $(files $fixtures/onnx '*.onnx') \
    $(files $fixtures/foreign)

# shellcheck disable=SC2046
seed executorch $(files $fixtures/executorch '*.pt[ed]')
# shellcheck disable=SC2046
seed pickle $(files $fixtures/pickle '*.pkl') $(files $fixtures/pickle '*.pd*') \
    $(files $fixtures/pickle '*.joblib')
# shellcheck disable=SC2046
seed pytorch $(files $fixtures/pickle '*.pt') $(files $fixtures/pickle '*.pth') \
    $(files $fixtures/pickle '*.pt2')
# shellcheck disable=SC2046
seed numpy $(files $fixtures/pickle '*.npy') $(files $fixtures/pickle '*.npz')
# shellcheck disable=SC2046
seed stack $(files $fixtures/stack '*.txt') $(files $fixtures/stack '*.bin')
# shellcheck disable=SC2046
seed signing $(files $fixtures/signing 'model.sig')
# The payloads and certificates of the bundles that decode (some are broken on purpose).
# shellcheck disable=SC2046
python3 - $(files $fixtures/signing 'model.sig') <<'PY'
import base64, hashlib, json, sys
def put(data):
    open("fuzz/corpus/signing/" + hashlib.sha1(data).hexdigest(), "wb").write(data)
for path in sys.argv[1:]:
    try:
        bundle = json.load(open(path))
        put(base64.b64decode(bundle["dsseEnvelope"]["payload"]))
        m = bundle["verificationMaterial"]
        certs = m.get("x509CertificateChain", {}).get("certificates", [])
        certs += [m["certificate"]] if "certificate" in m else []
        for c in certs:
            put(base64.b64decode(c["rawBytes"]))
    except (ValueError, KeyError, TypeError, AttributeError):
        pass
PY
# shellcheck disable=SC2046
seed signing $(files $fixtures/signing/material 'cert-*.pem') \
    $(files $fixtures/signing/material 'chain-*.pem')

# shellcheck disable=SC2046
seed tflite $(files $fixtures/tflite '*.tflite')
# shellcheck disable=SC2046
seed keras $(files $fixtures/keras '*.keras')
# shellcheck disable=SC2046
seed litertlm $(files $fixtures/litertlm '*.litertlm')
# shellcheck disable=SC2046
seed hdf5 $(files $fixtures/keras '*.h5')

for t in rten onnx paddle gguf safetensors detect writers executorch pickle pytorch numpy stack tflite signing keras litertlm hdf5; do
    echo "fuzz/corpus/$t: $(find "fuzz/corpus/$t" -type f | wc -l) files"
done
