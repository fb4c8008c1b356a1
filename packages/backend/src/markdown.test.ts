import { describe, expect, it } from 'vitest';
import { stripMarkdown } from './markdown.js';

describe('stripMarkdown', () => {
  it.each([
    [
      'bold and italics',
      'This is **very** important and *quite* _new_.',
      'This is very important and quite new.',
    ],
    ['underscore strong and strikethrough', '__Note__: ~~old~~ new.', 'Note: old new.'],
    ['snake_case stays', 'Set max_turn_chars to 5.', 'Set max_turn_chars to 5.'],
    ['heading', '## Getting started', 'Getting started'],
    ['list markers', '- first item', 'first item'],
    ['numbered list', '2. second item', 'second item'],
    ['quote', '> quoted words', 'quoted words'],
    ['link → its text', 'Read [the guide](https://example.com/guide) first.', 'Read the guide first.'],
    ['image → alt text', '![a cat](cat.png) sits.', 'a cat sits.'],
    ['bare URL dropped', 'Go to https://example.com/a?b=c now.', 'Go to now.'],
    ['URL in parentheses dropped with them', 'The docs (https://example.com) say so.', 'The docs say so.'],
    ['inline code → content', 'Call `sayText` twice.', 'Call sayText twice.'],
    ['stray markers of a run cut in two', '**Bold start.', 'Bold start.'],
    ['a lone asterisk (arithmetic) is kept', '2 * 3 is 6.', '2 * 3 is 6.'],
    ['horizontal rule', '---', ''],
    ['table row', '| a | b |', 'a, b'],
    ['table rule', '|---|:--:|', ''],
    ['html tags', 'Line<br>break', 'Line break'],
    ['plain text unchanged', 'Nothing to strip here, really.', 'Nothing to strip here, really.'],
  ])('%s', (_name, input, expected) => {
    expect(stripMarkdown(input)).toBe(expected);
  });
});
