/** `<Avatar>` rendered on the server (react-dom/server): its box, before any effect runs. */
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Avatar } from './index.js';

describe('<Avatar> on the server', () => {
  it('renders its box and the container the SDK fills, idle, touching no browser API', () => {
    const html = renderToString(
      createElement(
        Avatar,
        { baseUrl: 'http://mp.test', sessionId: 's', viewerToken: 'v', className: 'face' },
        createElement('p', null, 'caption'),
      ),
    );
    expect(html).toMatch(/^<div class="face" style="position:relative" data-state="IDLE"/);
    expect(html).toMatch(/<div id="mouthpiece-[A-Za-z0-9_-]+" style="position:absolute;inset:0"><\/div>/);
    expect(html).toContain('<p>caption</p>');
  });
});
