"""The data stage: typed records (topics, questions, documents), their loaders, and the official metric."""

from .load import (all_documents, data_files, group_topics, load_answers, load_data, load_documents, load_labelled,
                   load_questions, load_split, load_topic_file, load_train_evidence, read_jsonl, split_dir,
                   split_folders)
from .metric import question_score
from .records import (LABELS, MAX_DOCUMENT_CHARS, NONE_TEXT, SPLITS, DataError, Document, Question, Topic,
                      is_none_option, normalize_text, parse_labels)

__all__ = ["LABELS", "MAX_DOCUMENT_CHARS", "NONE_TEXT", "SPLITS", "DataError", "Document", "Question", "Topic",
           "all_documents", "data_files", "group_topics", "is_none_option", "load_answers", "load_data",
           "load_documents", "load_labelled", "load_questions", "load_split", "load_topic_file", "load_train_evidence",
           "normalize_text", "parse_labels", "question_score", "read_jsonl", "split_dir", "split_folders"]
