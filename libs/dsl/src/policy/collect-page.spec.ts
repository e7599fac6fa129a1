import { collectPage } from './collect-page';

describe('collectPage', () => {
  describe('append (the default)', () => {
    it('concatenates list pages', () => {
      const first = collectPage(undefined, { data: [1, 2] }, { strategy: 'append', path: 'data' });
      expect(first).toEqual([1, 2]);
      expect(collectPage(first, { data: [3] }, { strategy: 'append', path: 'data' })).toEqual([1, 2, 3]);
    });

    it('pushes a non-list page', () => {
      expect(collectPage([{ a: 1 }], { a: 2 }, undefined)).toEqual([{ a: 1 }, { a: 2 }]);
      expect(collectPage(undefined, 'x', { strategy: 'append' })).toEqual(['x']);
    });

    it('wraps a non-list collection and starts from null', () => {
      expect(collectPage('first', ['second'], undefined)).toEqual(['first', 'second']);
      expect(collectPage(null, [1], undefined)).toEqual([1]);
    });

    it('adds nothing when the path is missing, but keeps JSON null', () => {
      expect(collectPage([1], { other: [] }, { strategy: 'append', path: 'data.items' })).toEqual([1]);
      expect(collectPage([1], { data: null }, { strategy: 'append', path: 'data' })).toEqual([1, null]);
    });

    it('reads nested and indexed paths', () => {
      const response = { data: { items: [{ id: 'a' }] }, rows: [{ list: [7, 8] }] };
      expect(collectPage([], response, { strategy: 'append', path: 'data.items' })).toEqual([{ id: 'a' }]);
      expect(collectPage([], response, { strategy: 'append', path: 'rows.0.list' })).toEqual([7, 8]);
      expect(collectPage([], response, { strategy: 'append', path: 'rows[0].list' })).toEqual([7, 8]);
      expect(collectPage([], response, { strategy: 'append', path: 'rows.1.list' })).toEqual([]);
      expect(collectPage([], response, { strategy: 'append', path: 'rows.x' })).toEqual([]);
    });

    it('does not mutate the collection', () => {
      const collected = [1];
      collectPage(collected, [2], undefined);
      expect(collected).toEqual([1]);
    });
  });

  describe('replace', () => {
    it('keeps only the latest page', () => {
      expect(collectPage([1, 2], { status: 'done' }, { strategy: 'replace' })).toEqual({ status: 'done' });
      expect(collectPage({ a: 1 }, { items: [3] }, { strategy: 'replace', path: 'items' })).toEqual([3]);
    });
  });

  describe('merge', () => {
    it('deep-merges mappings without mutating them', () => {
      const collected = { totals: { a: 1, b: 1 }, tags: ['x'] };
      const merged = collectPage(collected, { totals: { b: 2, c: 3 }, tags: ['y'] }, { strategy: 'merge' });
      expect(merged).toEqual({ totals: { a: 1, b: 2, c: 3 }, tags: ['y'] });
      expect(collected).toEqual({ totals: { a: 1, b: 1 }, tags: ['x'] });
    });

    it('concatenates lists', () => {
      expect(collectPage([1], [2], { strategy: 'merge' })).toEqual([1, 2]);
    });

    it('starts from the first page and keeps the collection when the page is missing', () => {
      expect(collectPage(undefined, { a: 1 }, { strategy: 'merge' })).toEqual({ a: 1 });
      expect(collectPage({ a: 1 }, {}, { strategy: 'merge', path: 'missing' })).toEqual({ a: 1 });
    });

    it('lets a page of another shape replace', () => {
      expect(collectPage({ a: 1 }, [1], { strategy: 'merge' })).toEqual([1]);
    });
  });
});
