"""Load `frognano tinker-datums` output into Tinker datums and train on them.

Written against the tinker SDK 0.31 (`tinker.types.Datum` converts plain lists in
`loss_fn_inputs` to TensorData: target_tokens -> int64, logprobs / advantages ->
float32) and the tinker-cookbook RL convention (rl/data_processing.py): inputs are
tokens[:-1], every per-position tensor is aligned with the targets tokens[1:],
0 on prompt and tool-output positions.

    frognano tinker-datums --in examples/data/tinker-rollouts.jsonl --out datums.jsonl
    python3 examples/interop/tinker_datums.py datums.jsonl
"""

import json
import sys


def load_datums(path):
    import tinker
    from tinker import types

    datums = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            datums.append(
                types.Datum(
                    model_input=types.ModelInput.from_ints(d["model_input"]),
                    loss_fn_inputs=d["loss_fn_inputs"],  # target_tokens, logprobs, advantages
                )
            )
    return datums


def main(path, base_model="Qwen/Qwen3-4B-Instruct-2507"):
    import tinker

    datums = load_datums(path)
    service = tinker.ServiceClient()
    training = service.create_lora_training_client(base_model=base_model, rank=32)
    result = training.forward_backward(datums, loss_fn="importance_sampling").result()
    training.optim_step(tinker.types.AdamParams(learning_rate=1e-5)).result()
    print(f"{len(datums)} datums, loss outputs: {len(result.loss_fn_outputs)}")


if __name__ == "__main__":
    main(sys.argv[1])
