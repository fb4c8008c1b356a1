#!/usr/bin/env python3
"""A tiny Piper-style VITS voice for tests (docs/voices.md, "Local neural voices").

Writes a model folder that sherpa-onnx's VITS/Piper loader accepts, without any trained weights:
  model.onnx       inputs `input` (int64 [1, T]), `input_lengths` (int64 [1]), `scales` (float [3]:
                   noise, length, noise_w) and `sid` (int64 [1]); output `output` (float [1, 1, N]).
                   Each token id k becomes SAMPLES_PER_TOKEN * length_scale samples of a sine at
                   k * HZ_PER_ID Hz (amplitude 0.5), so id 0 (the pad Piper puts between phonemes) is
                   silence, and a test can read the spoken tokens back from the audio's frequencies.
  tokens.txt       Piper's symbol table: pad "_", begin "^", end "$", space, punctuation, IPA letters.
  espeak-ng-data   a symlink to the system's espeak-ng data (Debian's package `espeak-ng-data`), which
                   sherpa-onnx's bundled espeak-ng reads to turn text into phonemes.

  --fail-on PHONEME   the graph fails at run time (a Gather out of bounds) whenever that
                      phoneme's token is in the input: a model that throws mid-turn.

Usage: python3 scripts/make-tiny-vits.py OUT_DIR [--fail-on z] [--espeak-data DIR]
Needs Debian's python3-onnx (apt-get install python3-onnx). The model is a few kilobytes.
"""
import argparse
import math
import os
import sys

import onnx
from onnx import TensorProto, helper

SAMPLE_RATE_HZ = 16000
SAMPLES_PER_TOKEN = 640  # 40 ms
HZ_PER_ID = 50

# Piper's first symbols, then the IPA letters espeak-ng writes for English and most languages
SYMBOLS = ["_", "^", "$", " ", "!", "'", "(", ")", ",", "-", ".", ":", ";", "?"] + list(
    "abcdefghijklmnopqrstuvwxyzæçðøħŋœɐɑɒɓɔɕɗɘəɚɛɜɞɟɠɡɢɣɤɥɦɧɨɪɫɬɭɮɯɰɱɲɳɴɵɶɸɹɺɻɽɾʀʁʂʃʄʈʉʊʋʌʍʎʏʐʑʒʔʕʘʙʛʜʝʟʡʢʲˈˌːˑ̃θχᵻⱱ"
)


def tokens_text() -> str:
    lines = []
    for i, s in enumerate(SYMBOLS):
        lines.append(f" {i}" if s == " " else f"{s} {i}")
    return "\n".join(lines) + "\n"


def build_graph(fail_id: int | None) -> onnx.ModelProto:
    c = lambda name, dtype, vals, dims=(): helper.make_tensor(name, dtype, list(dims), vals)
    init = [
        c("one_idx", TensorProto.INT64, [1]),
        c("spt", TensorProto.FLOAT, [float(SAMPLES_PER_TOKEN)]),
        c("zero_f", TensorProto.FLOAT, [0.0]),
        c("one_f", TensorProto.FLOAT, [1.0]),
        c("omega", TensorProto.FLOAT, [2 * math.pi * HZ_PER_ID / SAMPLE_RATE_HZ]),
        c("amp", TensorProto.FLOAT, [0.5]),
        c("axis2", TensorProto.INT64, [2], [1]),
        c("flat_shape", TensorProto.INT64, [1, 1, -1], [3]),
        c("probe", TensorProto.FLOAT, [0.0], [1]),
        c("far", TensorProto.INT64, [1000]),
        c("fail_id", TensorProto.INT64, [fail_id if fail_id is not None else -1]),
    ]
    n = helper.make_node
    nodes = [
        n("Gather", ["scales", "one_idx"], ["length_scale"], axis=0),
        n("Mul", ["length_scale", "spt"], ["k_raw"]),
        n("Round", ["k_raw"], ["k"]),
        n("Range", ["zero_f", "k", "one_f"], ["steps"]),  # [K]
        n("Cast", ["input"], ["ids_f"], to=TensorProto.FLOAT),  # [1, T]
        n("Unsqueeze", ["ids_f", "axis2"], ["ids3"]),  # [1, T, 1]
        n("Mul", ["ids3", "omega"], ["w"]),
        n("Mul", ["w", "steps"], ["phase"]),  # [1, T, K]
        n("Sin", ["phase"], ["wave"]),
        n("Mul", ["wave", "amp"], ["y3"]),
        n("Reshape", ["y3", "flat_shape"], ["flat"]),
        # a Gather out of bounds when the failing token is present: ORT throws at run time
        n("Equal", ["input", "fail_id"], ["hit"]),
        n("Cast", ["hit"], ["hit_i"], to=TensorProto.INT64),
        n("ReduceMax", ["hit_i"], ["bad"], keepdims=0),
        n("Mul", ["bad", "far"], ["probe_at"]),
        n("Gather", ["probe", "probe_at"], ["probed"], axis=0),
        n("Add", ["flat", "probed"], ["output"]),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny-vits",
        [
            helper.make_tensor_value_info("input", TensorProto.INT64, [1, "T"]),
            helper.make_tensor_value_info("input_lengths", TensorProto.INT64, [1]),
            helper.make_tensor_value_info("scales", TensorProto.FLOAT, [3]),
            helper.make_tensor_value_info("sid", TensorProto.INT64, [1]),
        ],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 1, "N"])],
        init,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    meta = {
        "model_type": "vits",
        "comment": "piper",
        "language": "English",
        "voice": "en-us",
        "has_espeak": "1",
        "n_speakers": "1",
        "sample_rate": str(SAMPLE_RATE_HZ),
        "add_blank": "0",
        "punctuation": "",
    }
    for k, v in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.checker.check_model(model)
    return model


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--fail-on", default=None, help="a phoneme whose token makes the graph fail")
    ap.add_argument("--espeak-data", default="/usr/lib/x86_64-linux-gnu/espeak-ng-data")
    a = ap.parse_args()
    fail_id = None
    if a.fail_on is not None:
        if a.fail_on not in SYMBOLS:
            sys.exit(f"make-tiny-vits: {a.fail_on!r} is not a token")
        fail_id = SYMBOLS.index(a.fail_on)
    if not os.path.isdir(a.espeak_data):
        sys.exit(f"make-tiny-vits: no espeak-ng data at {a.espeak_data} (apt-get install espeak-ng-data)")
    os.makedirs(a.out, exist_ok=True)
    onnx.save(build_graph(fail_id), os.path.join(a.out, "model.onnx"))
    with open(os.path.join(a.out, "tokens.txt"), "w", encoding="utf-8") as f:
        f.write(tokens_text())
    link = os.path.join(a.out, "espeak-ng-data")
    if not os.path.lexists(link):
        os.symlink(a.espeak_data, link)


if __name__ == "__main__":
    main()
