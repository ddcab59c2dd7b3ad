/** A small SSE reader for tests: frames until the server ends the response (or `stopAfter` matches). */
export interface SseFrame {
  id: string | null;
  event: string;
  data: any;
}

export async function readSse(
  url: string,
  headers: Record<string, string>,
  options: { stopAfter?: (f: SseFrame) => boolean; timeoutMs?: number } = {},
): Promise<{ status: number; contentType: string | null; frames: SseFrame[] }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 20_000);
  const frames: SseFrame[] = [];
  try {
    const response = await fetch(url, {
      headers: { accept: 'text/event-stream', ...headers },
      signal: controller.signal,
    });
    if (!response.body || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      return { status: response.status, contentType: response.headers.get('content-type'), frames };
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const frame: SseFrame = { id: null, event: 'message', data: null };
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          if (line.startsWith('id: ')) frame.id = line.slice(4);
          else if (line.startsWith('event: ')) frame.event = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (!data) continue;
        frame.data = JSON.parse(data);
        frames.push(frame);
        if (options.stopAfter?.(frame)) {
          controller.abort();
          return { status: response.status, contentType: response.headers.get('content-type'), frames };
        }
      }
    }
    return { status: response.status, contentType: response.headers.get('content-type'), frames };
  } catch (error) {
    if (controller.signal.aborted) return { status: 200, contentType: 'text/event-stream', frames };
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
