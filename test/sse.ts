// Reading a server-sent event stream in tests: the frames of a response body, parsed as they come.

export interface Frame {
  id?: string;
  event?: string;
  data?: any;
  comment?: string;
  retry?: string;
}

/** Reads SSE frames from a response body until `until` holds, or the stream ends (`state.ended`). */
export function sseReader(res: Response) {
  const r = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const frames: Frame[] = [];
  const state = { ended: false };
  async function next(until: (f: Frame[]) => boolean): Promise<Frame[]> {
    while (!until(frames)) {
      const { done, value } = await r.read();
      if (done) {
        state.ended = true;
        break;
      }
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const f: Frame = {};
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) f.comment = line.slice(1).trim();
          else if (line.startsWith("id: ")) f.id = line.slice(4);
          else if (line.startsWith("event: ")) f.event = line.slice(7);
          else if (line.startsWith("data: ")) f.data = JSON.parse(line.slice(6));
          else if (line.startsWith("retry: ")) f.retry = line.slice(7);
        }
        frames.push(f);
      }
    }
    return frames;
  }
  const events = (type?: string) => frames.filter((f) => f.event && (!type || f.event === type));
  return { next, frames, events, state, cancel: () => r.cancel() };
}
