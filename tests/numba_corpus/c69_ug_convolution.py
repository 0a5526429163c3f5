# SPDX-FileCopyrightText: Copyright (c) 2012, Anaconda, Inc. and others. All rights reserved.
# SPDX-License-Identifier: BSD-2-Clause
"""numba user guide, "Example: 2D convolution" (convolution_kernel: tuple-unpacked shapes,
chained comparisons for zero padding, float32 image and Gaussian kernel).
Source: numba/numba numba/cuda/tests/doc_examples/test_convolution.py (commit ee32c93), BSD-2-Clause.
Harness only: main() returns the blurred image (64x64 as in the example)."""

import math

import numpy as np

from warpscope.emulator import cuda


@cuda.jit
def convolution_kernel(image, kernel, output):
    """
    Apply a 2D convolution filter to an image using CUDA.
    """
    # Get thread indices
    i, j = cuda.grid(2)

    # Get kernel dimensions
    k_rows, k_cols = kernel.shape
    k_center_y, k_center_x = k_rows // 2, k_cols // 2

    # Only process valid image pixels
    if i < output.shape[0] and j < output.shape[1]:
        val = 0.0
        # Apply the convolution
        for k_i in range(k_rows):
            for k_j in range(k_cols):
                # Get the corresponding image pixel
                i_pos = i + (k_i - k_center_y)
                j_pos = j + (k_j - k_center_x)

                # Check if the position is valid (zero padding)
                if 0 <= i_pos < image.shape[0] and 0 <= j_pos < image.shape[1]:
                    val += image[i_pos, j_pos] * kernel[k_i, k_j]

        # Store the result
        output[i, j] = val


def apply_convolution(image, kernel):
    image = image.astype(np.float32)
    kernel = kernel.astype(np.float32)
    d_image = cuda.to_device(image)
    d_kernel = cuda.to_device(kernel)
    d_output = cuda.device_array_like(image)
    threads_per_block = (16, 16)
    blocks_per_grid_x = math.ceil(image.shape[0] / threads_per_block[0])
    blocks_per_grid_y = math.ceil(image.shape[1] / threads_per_block[1])
    blocks_per_grid = (blocks_per_grid_x, blocks_per_grid_y)
    convolution_kernel[blocks_per_grid, threads_per_block](d_image, d_kernel, d_output)
    return d_output.copy_to_host()


def main():
    image_size = 64
    image = np.zeros((image_size, image_size), dtype=np.float32)
    for i in range(image_size):
        for j in range(image_size):
            image[i, j] = (i + j) / (2 * image_size)
    gaussian = np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]], dtype=np.float32) / 16.0
    return {"blurred": apply_convolution(image, gaussian)}
