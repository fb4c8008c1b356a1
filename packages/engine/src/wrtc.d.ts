// Our own declarations of the parts of @roamhq/wrtc 0.10 we use (its bundled types do not
// compile without DOM libs; docs/design.md §3.2). Only loaded in engine child processes.
declare module '@roamhq/wrtc' {
  export interface RtcIceServer {
    urls: string | string[];
    username?: string;
    credential?: string;
  }
  export interface MediaStreamTrack {
    readonly kind: 'audio' | 'video';
    readonly id: string;
    enabled: boolean;
    stop(): void;
  }
  export interface RTCRtpSender {
    readonly track: MediaStreamTrack | null;
    replaceTrack(track: MediaStreamTrack | null): Promise<void>;
    /** Which streams the track belongs to (the SDP's msid, the receiver's A/V sync group). */
    setStreams(...streams: MediaStream[]): void;
  }
  export class MediaStream {
    readonly id: string;
  }
  export interface RTCRtpReceiver {
    readonly track: MediaStreamTrack;
  }
  export interface RTCRtpTransceiver {
    readonly mid: string | null;
    readonly sender: RTCRtpSender;
    readonly receiver: RTCRtpReceiver;
    direction: 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';
  }
  export interface RTCDataChannel {
    readonly label: string;
    readonly readyState: 'connecting' | 'open' | 'closing' | 'closed';
    readonly bufferedAmount: number;
    send(data: string | ArrayBuffer | ArrayBufferView): void;
    binaryType: string;
    close(): void;
    onopen: (() => void) | null;
    onclose: (() => void) | null;
    onmessage: ((ev: { data: unknown }) => void) | null;
  }
  export interface RTCSessionDescriptionInit {
    type: 'offer' | 'answer';
    sdp: string;
  }
  export class RTCPeerConnection {
    constructor(config?: {
      iceServers?: RtcIceServer[];
      bundlePolicy?: string;
      portRange?: { min?: number; max?: number };
    });
    readonly iceGatheringState: 'new' | 'gathering' | 'complete';
    readonly iceConnectionState: string;
    readonly connectionState: string;
    readonly localDescription: RTCSessionDescriptionInit | null;
    onicegatheringstatechange: (() => void) | null;
    /** A candidate gathered (null: gathering ended); rtc/gathering.ts. */
    onicecandidate: ((ev: { candidate: { candidate: string } | null }) => void) | null;
    oniceconnectionstatechange: (() => void) | null;
    onconnectionstatechange: (() => void) | null;
    ondatachannel: ((ev: { channel: RTCDataChannel }) => void) | null;
    setRemoteDescription(d: RTCSessionDescriptionInit): Promise<void>;
    createAnswer(): Promise<RTCSessionDescriptionInit>;
    /** The offering side (testing/wrtc-viewer-main.ts: a viewer as browsers are). */
    createOffer(): Promise<RTCSessionDescriptionInit>;
    addTransceiver(
      kind: 'audio' | 'video',
      init?: { direction?: RTCRtpTransceiver['direction'] },
    ): RTCRtpTransceiver;
    createDataChannel(label: string, init?: { ordered?: boolean }): RTCDataChannel;
    setLocalDescription(d: RTCSessionDescriptionInit): Promise<void>;
    addIceCandidate(c: {
      candidate: string;
      sdpMid?: string | null;
      sdpMLineIndex?: number | null;
    }): Promise<void>;
    getTransceivers(): RTCRtpTransceiver[];
    /** The stats report: records with a `type` (transport, inbound-rtp, …); what the engine reads is typed. */
    getStats(): Promise<Map<string, { type?: string; bytesReceived?: number } & Record<string, unknown>>>;
    close(): void;
  }
  export interface I420Frame {
    width: number;
    height: number;
    data: Uint8Array | Uint8ClampedArray;
  }
  export const nonstandard: {
    RTCVideoSource: new (opts?: { isScreencast?: boolean; needsDenoising?: boolean }) => {
      createTrack(): MediaStreamTrack;
      onFrame(frame: I420Frame): void;
    };
    RTCAudioSource: new () => {
      createTrack(): MediaStreamTrack;
      onData(data: {
        samples: Int16Array;
        sampleRate: number;
        bitsPerSample: number;
        channelCount: number;
        numberOfFrames: number;
      }): void;
    };
    rgbaToI420(src: I420Frame, dst: I420Frame): void;
  };
  const wrtc: {
    RTCPeerConnection: typeof RTCPeerConnection;
    MediaStream: typeof MediaStream;
    nonstandard: typeof nonstandard;
  };
  export default wrtc;
}
