export {
  openAiStandin,
  tokenize,
  nowMs,
  type OpenAiStandin,
  type StandinCompletion,
  type ChatMessage,
} from './openai-standin.js';
export { eventsStandin, type EventsStandin } from './events-standin.js';
export { audioStandin, type AudioStandin, type AudioStandinTurn } from './audio-standin.js';
