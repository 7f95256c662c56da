import type * as tf from '@tensorflow/tfjs';

/** A tensor's values, read asynchronously (the only read webgpu in Node has). Does not dispose it. */
export async function read(t: tf.Tensor): Promise<number[]> {
  return Array.from((await t.data()) as Float32Array);
}

/** The first value of a tensor (a loss), read asynchronously. Does not dispose it. */
export async function scalar(t: tf.Tensor): Promise<number> {
  return (await t.data())[0]!;
}
