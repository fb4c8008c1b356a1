/**
 * What a bench's page function (run by page.evaluate() in an integrator's SDK page) is given to
 * open its session. Types only: a page function is sent to the page as source, so it imports
 * nothing at run time.
 */
export interface PageSessionArgs {
  baseUrl: string;
  credential: string;
  avatarId: string;
  voiceId: string;
  /** What the session says. */
  text: string;
}
