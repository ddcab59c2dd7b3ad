import { derivedUuid } from '../../platform/command-handling/idempotency';

/**
 * The optional mirror of expert scores to Langfuse's public ingestion API
 * (`POST {host}/api/public/ingestion`, HTTP Basic with the project's public and secret key).
 * One `score-create` per gesture; the score's id is the capture id, so Langfuse keeps one
 * score per capture and a later gesture overwrites it. The API answers 207 with per-item
 * `successes` and `errors`: an item in `errors` is a failure like a non-2xx status is.
 */
export interface LangfuseConfig {
  host: string;
  publicKey: string;
  secretKey: string;
}

export interface ScoreToMirror {
  captureId: string;
  executionId: string;
  score: -1 | 1;
  note: string | null;
  categoryTag: string | null;
  /** Distinguishes gestures: each one is its own ingestion event. */
  gesture: number;
  at: Date;
}

export type MirrorResult = { ok: true } | { ok: false; error: string };

export const SCORE_NAME = 'expert_verdict';

export async function mirrorScore(
  config: LangfuseConfig,
  score: ScoreToMirror,
  options: { timeoutMs?: number; fetch?: typeof fetch } = {},
): Promise<MirrorResult> {
  const doFetch = options.fetch ?? fetch;
  const eventId = derivedUuid('evaluation.langfuse-event', score.captureId, String(score.gesture));
  const body = {
    batch: [
      {
        id: eventId,
        type: 'score-create',
        timestamp: score.at.toISOString(),
        body: {
          id: score.captureId,
          traceId: score.executionId,
          name: SCORE_NAME,
          value: score.score,
          dataType: 'NUMERIC',
          comment: score.note ?? undefined,
          metadata: score.categoryTag ? { category_tag: score.categoryTag } : undefined,
        },
      },
    ],
  };
  try {
    const response = await doFetch(`${config.host}/api/public/ingestion`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${config.publicKey}:${config.secretKey}`).toString('base64')}`,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
    });
    const text = await response.text();
    if (!response.ok) return { ok: false, error: `langfuse answered ${response.status}: ${text.slice(0, 200)}` };
    let parsed: { errors?: Array<{ id?: string; status?: number; message?: string; error?: unknown }> } = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      return { ok: false, error: `langfuse answered ${response.status} with a body that is not JSON` };
    }
    const failed = (parsed.errors ?? []).find((e) => e.id === eventId) ?? parsed.errors?.[0];
    if (failed)
      return {
        ok: false,
        error:
          `langfuse rejected the score (${failed.status ?? '?'}): ${failed.message ?? JSON.stringify(failed.error ?? '')}`.slice(
            0,
            300,
          ),
      };
    return { ok: true };
  } catch (error) {
    return { ok: false, error: `langfuse unreachable: ${error instanceof Error ? error.message : String(error)}` };
  }
}
