#!/usr/bin/env bash
# Regenerates the small audio fixtures used by src/audio tests (Debian: espeak-ng, sox, lame).
set -euo pipefail
cd "$(dirname "$0")/../test-fixtures/audio"
espeak-ng -v en-us -w speech-22k.wav "Papa bought a big bag."          # 22.05 kHz mono 16-bit
sox speech-22k.wav -r 44100 -c 2 speech-44k-stereo.wav
lame --quiet -b 64 --resample 44.1 speech-22k.wav speech-44k.mp3
lame --quiet -b 48 --resample 22.05 speech-22k.wav speech-22k.mp3
lame --quiet -b 64 --resample 48 -m s speech-44k-stereo.wav speech-48k-stereo.mp3
sox speech-22k.wav -e floating-point -b 32 speech-float.wav
sox speech-22k.wav short.wav trim 0 0.05
head -c $(( $(stat -c %s speech-44k.mp3) / 2 )) speech-44k.mp3 > truncated.mp3
head -c 3000 /dev/urandom > junk.bin
ls -la
