throw new Error('top-level boom');
