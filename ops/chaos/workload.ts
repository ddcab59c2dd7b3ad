import type { Instance } from './instances';
import { sleep } from './instances';
import { seededRandom } from '../../src/platform/samples/seeded-random';

/**
 * A write the platform acknowledged (a 2xx), with the read that must find it afterwards on
 * either instance. Writes that failed under a fault are not counted: the client was told.
 */
export interface AcknowledgedWrite {
  what: string;
  check: string;
  /** What the read must hold beyond a 200 (e.g. at least so many messages). */
  holds?: (body: any) => boolean;
}

export interface Workload {
  acknowledged: AcknowledgedWrite[];
  attempted: number;
  failed: number;
  /** Streamed turns that reached their terminal frame. */
  streamedTurns: number;
  stop(): Promise<void>;
}

interface Session {
  headers: Record<string, string>;
}

const API = '/api/v1';

async function call(
  instance: Instance,
  session: Session,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 15_000,
) {
  const response = await fetch(`${instance.publicUrl}${API}${path}`, {
    method,
    headers: { ...session.headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: response.status, body: json };
}

/** The bootstrap administrator's session, through POST /auth/token as the console signs in. */
export async function signIn(instance: Instance, email: string, password: string): Promise<Session> {
  const response = await fetch(`${instance.publicUrl}${API}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('svc_token='));
  if (!cookie) throw new Error('sign-in set no svc_token cookie');
  return { headers: { authorization: `Bearer ${cookie.slice('svc_token='.length).split(';')[0]}` } };
}

/** Retries a set-up step through faults: the workload's own preparation is not under test. */
async function settled<T>(step: () => Promise<{ status: number; body: any }>, pick: (body: any) => T): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const result = await step().catch(() => ({ status: 0, body: null }));
    if (result.status >= 200 && result.status < 300) return pick(result.body);
    if (attempt > 60) throw new Error(`workload set-up failed: ${result.status} ${JSON.stringify(result.body)}`);
    await sleep(500);
  }
}

/**
 * Commands, turns (plain and streamed over SSE), CSV imports and assessments against both
 * instances in turn, until stopped. Each loop is one client waiting for its answer before the
 * next request, as people and integrations do.
 */
export async function startWorkload(instances: Instance[], session: Session, seed: number): Promise<Workload> {
  const random = seededRandom(seed ^ 0x5eed);
  const state: Workload = { acknowledged: [], attempted: 0, failed: 0, streamedTurns: 0, stop: async () => undefined };
  const anyInstance = () => {
    const alive = instances.filter((i) => i.child);
    return alive.length ? random.pick(alive) : instances[0];
  };
  const eventType = await settled(
    () =>
      call(anyInstance(), session, 'POST', '/event-types', {
        name: `Chaos alarm ${seed}`,
        fields: [
          { name: 'metric', type: 'text', required: true },
          { name: 'value', type: 'number' },
        ],
      }),
    (b) => b.id as string,
  );
  await settled(
    () => call(anyInstance(), session, 'POST', `/event-types/${eventType}/transition`, { status: 'active' }),
    () => null,
  );

  let running = true;
  let serial = 0;
  const unique = () => `${seed % 1000}`.padStart(3, '0') + String(serial++).padStart(5, '0');
  const attempt = async (run: () => Promise<AcknowledgedWrite | null>) => {
    state.attempted++;
    try {
      const written = await run();
      if (written) state.acknowledged.push(written);
      else state.failed++;
    } catch {
      state.failed++;
    }
  };

  const wells = async () => {
    while (running) {
      const id = unique();
      const api = `42-501-${id.slice(-5)}`;
      await attempt(async () => {
        const entityId = `chaos-well-${id}`;
        const r = await call(anyInstance(), session, 'POST', '/graph/entities', {
          label: 'Well',
          properties: {
            entity_id: entityId,
            api_number: api,
            well_type: 'gas',
            production_gas_mcf: 1000 + (serial % 97),
          },
        });
        return r.status < 300 ? { what: 'well', check: `/graph/entities/Well/${entityId}` } : null;
      });
      await sleep(random.int(50, 250));
    }
  };

  const events = async () => {
    while (running) {
      await attempt(async () => {
        const r = await call(anyInstance(), session, 'POST', '/events', {
          event_type_id: eventType,
          entity_id: `42-329-${String(serial % 50).padStart(5, '0')}`,
          entity_type: 'Well',
          occurred_at: new Date().toISOString(),
          fields: { metric: 'casing_pressure', value: 800 + (serial % 50) },
        });
        return r.status < 300 && r.body?.id ? { what: 'event', check: `/events/${r.body.id}` } : null;
      });
      await sleep(random.int(100, 400));
    }
  };

  // Turns: each conversation keeps a count of acknowledged turns; its messages must hold a
  // user message and a reply for each.
  const turns = async (streamed: boolean) => {
    while (running) {
      const conversation = await call(anyInstance(), session, 'POST', '/conversations', {
        agent_id: 'compliance',
      }).catch(() => null);
      if (!conversation || conversation.status >= 300) {
        await sleep(500);
        continue;
      }
      const id = conversation.body.id as string;
      state.attempted++;
      state.acknowledged.push({ what: 'conversation', check: `/conversations/${id}/messages` });
      let turnsDone = 0;
      for (let n = 0; n < 3 && running; n++) {
        const message = `What is the compliance status of well 42-501-${String(serial % 1000).padStart(5, '0')}?`;
        const done = streamed
          ? await streamTurn(anyInstance(), session, id, message)
          : await plainTurn(anyInstance(), session, id, message);
        state.attempted++;
        if (done) {
          turnsDone++;
          if (streamed) state.streamedTurns++;
          const expected = turnsDone * 2;
          state.acknowledged.push({
            what: streamed ? 'streamed turn' : 'turn',
            check: `/conversations/${id}/messages`,
            holds: (body) => Number(body?.total ?? body?.messages?.length ?? 0) >= expected,
          });
        } else state.failed++;
      }
    }
  };

  const imports = async () => {
    while (running) {
      await attempt(async () => {
        const rows = Array.from({ length: 5 }, () => {
          const id = unique();
          return `42-003-${id.slice(-5)},123456,CHAOS ENERGY LLC,CHAOS ${id.slice(0, 3)},${id.slice(-5)},1H,Andrews,08,SPRABERRY (TREND AREA),85279200,32.3,-102.6,O`;
        });
        const csv = [
          'API_NO,Operator No.,OPERATOR_NAME,Lease Name,LEASE_NO,Well No,COUNTY,District,FIELD_NAME,FIELD_NO,SURFACE_LAT,SURFACE_LONG,Well Type',
          ...rows,
        ].join('\n');
        const form = new FormData();
        form.append('file', new Blob([csv], { type: 'text/csv' }), `chaos-${serial}.csv`);
        const response = await fetch(`${anyInstance().publicUrl}${API}/ingest/operator/csv`, {
          method: 'POST',
          headers: session.headers,
          body: form,
          signal: AbortSignal.timeout(30_000),
        });
        const body = (await response.json().catch(() => null)) as any;
        return response.status < 300 && body?.import_id
          ? { what: 'import', check: `/ingest/imports/${body.import_id}` }
          : null;
      });
      await sleep(random.int(3_000, 8_000));
    }
  };

  const assessments = async () => {
    while (running) {
      await sleep(random.int(5_000, 12_000));
      if (!running) break;
      state.attempted++;
      // An assessment's effect is the dashboard read model, which the rebuild check compares.
      await call(anyInstance(), session, 'POST', '/compliance/assess', {}, 60_000).catch(() => null);
    }
  };

  const loops = [wells(), events(), turns(false), turns(true), imports(), assessments()];
  state.stop = async () => {
    running = false;
    await Promise.all(loops);
  };
  return state;
}

async function plainTurn(
  instance: Instance,
  session: Session,
  conversationId: string,
  message: string,
): Promise<boolean> {
  const r = await call(
    instance,
    session,
    'POST',
    '/execute',
    { conversation_id: conversationId, message },
    60_000,
  ).catch(() => null);
  return !!r && r.status < 300 && r.body?.status !== 'error';
}

/** A turn streamed over SSE as the console runs one: acknowledged once its terminal frame arrives. */
async function streamTurn(
  instance: Instance,
  session: Session,
  conversationId: string,
  message: string,
): Promise<boolean> {
  try {
    const url = `${instance.publicUrl}${API}/conversations/${conversationId}/stream?message=${encodeURIComponent(message)}`;
    const response = await fetch(url, {
      headers: { ...session.headers, accept: 'text/event-stream' },
      signal: AbortSignal.timeout(60_000),
    });
    if (response.status !== 200 || !response.body) return false;
    let text = '';
    const decoder = new TextDecoder();
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      if (/^event: done$/m.test(text)) return true;
    }
    // The stream closed: acknowledged only when a completion frame was sent.
    return /^event: done$/m.test(text);
  } catch {
    return false;
  }
}

/** Reads every acknowledged write back; the ones that never answer as written are lost. */
export async function verifyWrites(
  instances: Instance[],
  session: Session,
  writes: AcknowledgedWrite[],
  waitMs = 30_000,
) {
  const lost: AcknowledgedWrite[] = [];
  const deadline = Date.now() + waitMs;
  for (const [n, write] of writes.entries()) {
    for (;;) {
      // Either instance must answer it: read-your-writes holds anywhere, not only where it was written.
      const alive = instances.filter((i) => i.child);
      const instance = alive.length ? alive[n % alive.length] : instances[0];
      const r = await call(instance, session, 'GET', write.check).catch(() => ({ status: 0, body: null }));
      if (r.status === 200 && (!write.holds || write.holds(r.body))) break;
      if (Date.now() > deadline) {
        lost.push(write);
        break;
      }
      await sleep(250);
    }
  }
  return lost;
}
