/**
 * A session's media on libwebrtc: the audio and video sources its sinks feed, and the factory of
 * WHEP viewer peers that send them (viewer-peer.ts). Built per session by the engine process
 * (process/engine-main.ts) and handed to the session, which never imports libwebrtc itself.
 */
import wrtc from '@roamhq/wrtc';
import { CHUNK_SAMPLES, SAMPLE_RATE_HZ } from '../clock/media-clock.js';
import type { AudioSink, VideoSink } from '../contract/media.js';
import type { PeerFactory } from '../contract/peer.js';
import { I420Region } from './i420-region.js';
import { ViewerPeer } from './viewer-peer.js';

export interface WrtcMedia {
  audioSink: AudioSink;
  videoSink?: VideoSink;
  peerFactory: PeerFactory;
}

export interface WrtcMediaOptions {
  /** The video size; absent: audio only (no video track is sent). */
  video?: { width: number; height: number };
  /** Which of a viewer's ICE candidates to use (candidate-filter.ts). */
  acceptCandidate?: (candidate: string) => boolean;
  /** The ports viewer peers bind (absent: any the OS gives). */
  portRange?: PortRange | undefined;
}

/**
 * A port range for libwebrtc's port allocator (@roamhq/wrtc's `portRange` option): each viewer
 * peer binds one UDP port (and one passive TCP port) per network interface from it.
 */
export interface PortRange {
  min: number;
  max: number;
}

export function createWrtcMedia(
  o: WrtcMediaOptions & { video: { width: number; height: number } },
): WrtcMedia & { videoSink: VideoSink };
export function createWrtcMedia(o: WrtcMediaOptions): WrtcMedia;
export function createWrtcMedia(o: WrtcMediaOptions): WrtcMedia {
  const audioSource = new wrtc.nonstandard.RTCAudioSource();
  /** Rendered frames have no sensor noise: VP8's denoiser would only cost encode time (≈ 25 %). */
  const videoSource = o.video ? new wrtc.nonstandard.RTCVideoSource({ needsDenoising: false }) : undefined;
  // one description object for every chunk (libwebrtc copies the samples during the call); it takes
  // exactly 10 ms a call (a 20 ms chunk throws "Expected a .numberOfFrames of 480, not 960")
  const chunk = {
    samples: new Int16Array(0) as Int16Array,
    sampleRate: SAMPLE_RATE_HZ,
    bitsPerSample: 16,
    channelCount: 1,
    numberOfFrames: CHUNK_SAMPLES,
  };
  const audioSink: AudioSink = {
    write: (samples) => {
      chunk.samples = samples;
      audioSource.onData(chunk);
    },
  };
  const peerFactory: PeerFactory = {
    answer: (offer) =>
      ViewerPeer.answer({
        ...offer,
        ...(o.acceptCandidate ? { acceptCandidate: o.acceptCandidate } : {}),
        ...(o.portRange ? { portRange: o.portRange } : {}),
        video: videoSource?.createTrack(),
        audio: audioSource.createTrack(),
      }),
  };
  if (!o.video || !videoSource) return { audioSink, peerFactory };
  const { width, height } = o.video;
  /** The frame last converted from RGBA: a region is converted into it (i420-region.ts). */
  const i420 = new Uint8Array((width * height * 3) / 2);
  const region = new I420Region({ width, height }, (rgba, out) => wrtc.nonstandard.rgbaToI420(rgba, out));
  const frame = { width, height, data: i420 };
  /** The frame last sent, for repeat(). */
  let last: Uint8Array | undefined;
  const send = (data: Uint8Array): void => {
    last = data;
    videoSource.onFrame(data === i420 ? frame : { width, height, data });
  };
  const videoSink: VideoSink = {
    width,
    height,
    writeI420: send,
    writeRgba: (rgba) => {
      wrtc.nonstandard.rgbaToI420({ width, height, data: rgba }, frame);
      send(i420);
    },
    writeRgbaRegion: (r, rgba) => {
      region.convert(r, rgba, i420);
      send(i420);
    },
    repeat: () => {
      if (last) send(last);
    },
  };
  return { audioSink, videoSink, peerFactory };
}
