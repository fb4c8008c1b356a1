/** An AvatarSession's configuration checked, and what it and init-client's answer make of each WHEP transport's options. */
import { ClientErrorCode, type InitClientResponse } from '@mouthpiece/protocol';
import { MouthpieceError } from './errors.js';
import type { Logger } from './logger.js';
import type { AvatarSessionConfig, RenderMode } from './session-types.js';
import { iceServersFor } from './turn.js';
import type { WhepTransportOptions } from './whep-transport.js';

/** Throws INVALID_CONFIGURATION for a config the SDK cannot start with. */
export function checkConfig(config: AvatarSessionConfig): void {
  if (!config || typeof config.baseUrl !== 'string' || !/^https?:\/\//.test(config.baseUrl))
    throw new MouthpieceError(
      ClientErrorCode.INVALID_CONFIGURATION,
      'baseUrl is required (an absolute http(s) URL)',
    );
  if (config.render !== undefined && config.render !== 'video' && config.render !== 'client')
    throw new MouthpieceError(ClientErrorCode.INVALID_CONFIGURATION, "render is 'video' or 'client'");
}

/** The options of each new WHEP transport of a session (init-client's answer and the config). */
export function transportOptions(
  init: InitClientResponse,
  config: AvatarSessionConfig,
  render: RenderMode,
  video: () => HTMLVideoElement | undefined,
  log: Logger,
): WhepTransportOptions {
  return {
    whepUrl: init.whepUrl,
    iceServers: iceServersFor(init.turn, init.iceServers),
    iceTransportPolicy: config.iceTransportPolicy ?? 'all',
    speakingDetection: config.speakingDetection ?? 'auto',
    render,
    video,
    log,
    trickle: init.trickleIce === true,
  };
}
