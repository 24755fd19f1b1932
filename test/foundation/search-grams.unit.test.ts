import { describe, expect, test } from '@jest/globals';
import { lookupGram, searchGramsOf } from '../../src/shared/search-grams.js';

describe('search grams', () => {
  // A post whose title or slug contains q in any case must hold the gram q is looked up by, or q misses it.
  const cases: [title: string, slug: string, q: string][] = [
    ['Our Easter (menu)*', 'easter-menu', '(MENU)*'],
    ['Rye bread EASTER special', 'rye', 'easter'],
    ['When we open', 'opening-hours', 'opening-h'],
    ['Café Crème — déjà vu', 'cafe-creme', 'CRÈME — D'],
    ['Ölmühle Straße', 'oelmuehle', 'MÜHLE S'],
    ['Brot & Butter 2025', 'brot-butter', 'r 20'],
    ['日本のパン', 'japan-bread', '本のパ'],
    ['Emoji 🍞 bread', 'emoji', '🍞 b'],
    ['a  b', 'ab', '  b'],
  ];
  test.each(cases)('%s / %s holds the gram %s is looked up by', (title, slug, q) => {
    expect((title + '\n' + slug).toLowerCase()).toContain(q.toLowerCase());
    const gram = lookupGram(q);
    expect(gram).not.toBeNull();
    expect(searchGramsOf(title, slug)).toContain(gram);
  });

  test('under three characters q has no gram (the search then reads by pattern alone)', () => {
    expect(lookupGram('ab')).toBeNull();
    expect(lookupGram('🍞b')).toBeNull();
    expect(lookupGram('abc')).toBe('abc');
  });

  test('the rarest piece is chosen, a title and its slug share theirs', () => {
    expect(lookupGram('the jazz')).toBe('azz'); // not 'the', held by most English titles
    expect(searchGramsOf('Easter menu', 'easter-menu')).toEqual(searchGramsOf('Easter menu', ''));
  });
});
