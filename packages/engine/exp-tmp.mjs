import init from '@echogarden/espeak-ng-emscripten';
const m = await init();
const w = new m.eSpeakNGWorker();
const vs = w.list_voices();
const EV = ['list_terminated','word','sentence','mark','play','end','msg_terminated','phoneme','samplerate'];
const size = w.getSizeOfEventStruct_();
let cur = [];
const cb = m.addFunction((a, len, evPtr) => {
  for (let p = evPtr; ; p += size) {
    const ev = m.wrapPointer(p, m.espeak_EVENT);
    const t = EV[ev.get_type()];
    if (t === 'list_terminated' || t === undefined) break;
    if (t === 'phoneme') cur.push(w.getStringIDFromEventStruct_(p));
  }
  return 0;
}, 'iiii');
const t0 = Date.now();
const all = new Map();
for (const v of vs) {
  cur = [];
  if (w.set_voice(v.identifier) !== 0) { console.log('novoice', v.identifier); continue; }
  w.synth_('1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 30 40 50 60 70 80 90 100 1000', cb);
  for (const p of cur) all.set(p, (all.get(p) ?? []).concat(v.identifier));
}
console.log('ms', Date.now() - t0);
console.log([...all.keys()].length);
console.log([...all.keys()].map(k => JSON.stringify(k)).join(' '));
