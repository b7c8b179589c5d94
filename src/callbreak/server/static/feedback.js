// Sound and vibration at the table: on your turn and when you win a trick, as the settings say.
// Tones are made with WebAudio (no audio files).
import { getSettings } from "./settings.js";

const TONES = {
  turn: [[660, 0, 0.12]],                       // [frequency Hz, start s, length s]
  trick: [[784, 0, 0.1], [1047, 0.09, 0.16]],   // a rising pair: G5 then C6
};
const BUZZ = { turn: [60], trick: [40, 50, 40] };

let audio = null;

function audioContext() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return null;
  if (!audio) audio = new Ctx();
  // Browsers start audio only after a tap on the page; resume() is refused before that.
  if (audio.state === "suspended") audio.resume().catch(() => { /* no tap yet: silent this time */ });
  return audio;
}

function tone(kind) {
  const ctx = audioContext();
  if (!ctx) return;
  const t0 = ctx.currentTime + 0.01;
  for (const [freq, at, len] of TONES[kind]) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = "sine";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, t0 + at);
    gain.gain.exponentialRampToValueAtTime(0.25, t0 + at + 0.015);
    gain.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t0 + at);
    osc.stop(t0 + at + len + 0.02);
  }
}

/** Sound and/or vibrate for "turn" or "trick"; `only` picks the channels (default: the settings). */
export function cue(kind, only) {
  const s = only || getSettings();
  if (s.sound) tone(kind);
  if (s.vibrate && typeof navigator.vibrate === "function") navigator.vibrate(BUZZ[kind]);
}

/**
 * Called by the table for every event, after the state is updated: a trick you won gives the
 * "trick" cue; the moment it becomes your turn (to call, or to play a card you choose) gives "turn".
 * All the events of one action carry the state after the action, so the play that ends a trick
 * you won already shows your lead: that turn is the trick's cue, not a second one.
 */
export function tableFeedback(ev, prev, state, table) {
  const me = table && table.you >= 0 ? table.you : -1;
  if (me < 0 || !state || !ev) return;
  if (ev.kind === "trick") {
    if (ev.winner === me) cue("trick");
    return;
  }
  if (table.status !== "playing" || state.to_act !== me) return;
  if (state.phase !== "calling" && state.phase !== "playing") return;
  if (prev && prev.to_act === me && prev.phase === state.phase && prev.round_number === state.round_number) return;
  const seat = table.seats && table.seats[me];
  if (seat && seat.autoplay) return; // a bot plays for you while you are away
  if (state.phase === "playing") {
    const forced = state.legal_cards && state.legal_cards.length === 1 && table.rules && table.rules.autoplay_forced;
    if (forced) return; // played for you: nothing to do
    const before = prev && prev.round_number === state.round_number && prev.tricks ? prev.tricks.length : 0;
    const tricks = state.tricks || [];
    if (tricks.length > before && tricks[tricks.length - 1].winner === me) return; // the trick event cues it
  }
  cue("turn");
}
