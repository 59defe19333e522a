/* attention_prefill: placeholder */
