import { expect } from 'chai';
import type { Request } from 'express';
import { routeTemplate } from '../../../src/platform/http/route-template';

const request = (routePath: unknown, originalUrl: string, baseUrl = '') =>
  ({ route: routePath === undefined ? undefined : { path: routePath }, originalUrl, baseUrl }) as unknown as Request;

describe('routeTemplate', () => {
  it('names the matched route with its mount prefix and {params}, never the ids of the request', () => {
    expect(routeTemplate(request('/checklists/:id/submit', '/api/v1/checklists/4b1c-9a/submit?x=1'))).to.equal(
      '/api/v1/checklists/{id}/submit',
    );
    expect(routeTemplate(request('/health', '/health'))).to.equal('/health');
    expect(routeTemplate(request('/connectors/:key/exposures/:ekey', '/api/v1/connectors/k1/exposures/e2'))).to.equal(
      '/api/v1/connectors/{key}/exposures/{ekey}',
    );
  });

  it('is null when no route matched (a 404, a console file)', () => {
    expect(routeTemplate(request(undefined, '/api/v1/nowhere/123'))).to.equal(null);
  });

  it('takes the mount from baseUrl for a pattern whose length it cannot tell', () => {
    expect(routeTemplate(request('/files/*path', '/api/v1/files/a/b/c', '/api/v1'))).to.equal('/api/v1/files/*path');
  });
});
